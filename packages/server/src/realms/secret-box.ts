import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts the client secrets of realms written through the admin API before they reach the
 * store (AES-256-GCM). The key is derived from the config's cookie_secret, which every instance
 * sharing the store shares; each secret is bound to its realm and client (additional data), so a
 * sealed value copied to another client does not open.
 */
export class SecretBox {
  readonly #key: Buffer;
  /** True when the key comes from the config, so other instances and later runs can open. */
  readonly durable: boolean;

  /** `secret` is the config's cookie_secret; without one, a random key that lasts the process. */
  constructor(secret: string | undefined) {
    this.durable = secret !== undefined;
    this.#key = Buffer.from(
      hkdfSync('sha256', secret ?? randomBytes(32), '', 'gatehouse admin client secrets v1', 32),
    );
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(Buffer.from(context));
    const sealed = Buffer.concat([
      cipher.update(plaintext, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return [VERSION, iv.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Throws when the value was sealed with another key or for another context, or was altered. */
  open(sealed: string, context: string): string {
    const [version, iv, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || body === undefined) {
      throw new Error('not a sealed client secret');
    }
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'))
      .setAAD(Buffer.from(context))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}
