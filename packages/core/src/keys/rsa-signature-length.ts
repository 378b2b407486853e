import type { CryptoKey } from 'jose';

/**
 * Whether `signature` is as long as an RSA key's modulus, as RFC 8017 requires before anything
 * else (§8.1.2 and §8.2.2, step 1); true for other keys. OpenSSL, and Node.js's WebCrypto with
 * it, also accept a signature whose leading zero bytes were left out, so one in 256 RSA
 * signatures, those starting with a zero byte, would verify in two encodings. A `JwsVerifier`
 * checks this before verifying.
 */
export function fitsRsaModulus(key: CryptoKey, signature: Uint8Array): boolean {
  const { modulusLength } = key.algorithm as { modulusLength?: number };
  return modulusLength === undefined || signature.length === Math.ceil(modulusLength / 8);
}
