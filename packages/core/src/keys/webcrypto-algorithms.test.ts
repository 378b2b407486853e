import { generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { cryptoKeyVerifies } from './webcrypto-algorithms.js';

/** An RSA public key of `bits` for `name` and `hash`, as a client's key set could hold. */
async function rsaKey(bits: number, name = 'RSASSA-PKCS1-v1_5', hash = 'SHA-256') {
  const { publicKey } = await crypto.subtle.generateKey(
    { name, modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash },
    true,
    ['sign', 'verify'],
  );
  return publicKey;
}

describe('cryptoKeyVerifies', () => {
  it('accepts a public key imported for the algorithm', async () => {
    const cases = [
      ['RS256', await rsaKey(2048)],
      ['PS384', await rsaKey(2048, 'RSA-PSS', 'SHA-384')],
      ['ES512', (await generateKeyPair('ES512')).publicKey],
      ['EdDSA', (await generateKeyPair('EdDSA')).publicKey],
      ['Ed25519', (await generateKeyPair('Ed25519')).publicKey],
    ] as const;
    for (const [alg, key] of cases) expect(cryptoKeyVerifies(key, alg), alg).toBe(true);
  });

  it('refuses another algorithm, hash or curve, an RSA modulus under 2048 bits and a private key', async () => {
    const rs256 = await rsaKey(2048);
    const es256 = await generateKeyPair('ES256');
    const cases = [
      ['PS256', rs256],
      ['RS384', rs256],
      ['ES384', es256.publicKey],
      ['EdDSA', es256.publicKey],
      ['RS256', await rsaKey(1024)],
      ['ES256', es256.privateKey],
    ] as const;
    for (const [alg, key] of cases) expect(cryptoKeyVerifies(key, alg), alg).toBe(false);
  });
});
