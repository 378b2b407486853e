import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlFromBytes } from '../crypto/base64url.js';
import { sameDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { StoreUnavailableError } from '../errors/oauth-error.js';
import type { Store } from '../store/store.js';

/** A nonce is good for the slot it was made in and the next: between one and two periods. */
export const NONCE_PERIOD_SECONDS = 120;

const SECRET_NAMESPACE = 'dpop_nonce_secret';
const SECRET_ID = 'provider';
const encoder = new TextEncoder();

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) that need no record per nonce: a nonce is the
 * HMAC of the realm and the current time slot under a secret every instance reads from the
 * shared store (the first instance to need it writes it), so each instance accepts the others'
 * nonces and they rotate with the slot. The current slot's nonce and the previous one's are
 * accepted.
 */
export class DpopNonces {
  readonly #store: Store;
  readonly #now: () => number;
  #secret: Promise<Uint8Array> | undefined;

  constructor(store: Store, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /** The nonce to hand out now. */
  async current(realm: string): Promise<string> {
    return this.#nonce(await this.#key(), realm, this.#slot());
  }

  /** Whether `nonce` is the current slot's or the previous one's. */
  async accepts(realm: string, nonce: string): Promise<boolean> {
    const key = await this.#key();
    const slot = this.#slot();
    // Both compared, whatever the first gives: the time does not say which slot matched.
    const current = sameDigest(this.#nonce(key, realm, slot), nonce);
    const previous = sameDigest(this.#nonce(key, realm, slot - 1), nonce);
    return current || previous;
  }

  #slot(): number {
    return Math.floor(this.#now() / 1000 / NONCE_PERIOD_SECONDS);
  }

  #nonce(key: Uint8Array, realm: string, slot: number): string {
    return base64urlFromBytes(hmac(sha256, key, encoder.encode(`${realm}\n${slot}`)));
  }

  #key(): Promise<Uint8Array> {
    this.#secret ??= this.#readSecret().catch((error: unknown) => {
      this.#secret = undefined;
      throw error;
    });
    return this.#secret;
  }

  async #readSecret(): Promise<Uint8Array> {
    await this.#store.add(SECRET_NAMESPACE, SECRET_ID, { secret: randomId(32) });
    const record = await this.#store.get<{ secret: string }>(SECRET_NAMESPACE, SECRET_ID);
    if (!record) throw new StoreUnavailableError('the DPoP nonce secret was not kept');
    return encoder.encode(record.secret);
  }
}
