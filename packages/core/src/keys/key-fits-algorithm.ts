import { base64url, type JWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';

/** The smallest RSA modulus accepted, as jose and RFC 7518 §3.3 require. */
export const MIN_RSA_MODULUS_BITS = 2048;

/**
 * Whether a published key can verify `alg` at all: its own `alg` is `alg`, its type and curve are
 * the algorithm's, an RSA modulus is at least 2048 bits, and it is meant for signatures. What
 * jose checked on import before the core verified through the signer; a key store handing out a
 * weak or mislabelled key then verifies nothing instead of something.
 */
export function keyFitsAlgorithm(key: JWK, alg: SigningAlgorithm): boolean {
  if (key.alg !== alg || (key.use !== undefined && key.use !== 'sig')) return false;
  if (key.key_ops !== undefined && !(Array.isArray(key.key_ops) && key.key_ops.includes('verify')))
    return false;
  switch (alg) {
    case 'ES256':
      return key.kty === 'EC' && key.crv === 'P-256';
    case 'EdDSA':
      return key.kty === 'OKP' && key.crv === 'Ed25519';
    case 'RS256':
    case 'PS256':
      return key.kty === 'RSA' && modulusBits(key.n) >= MIN_RSA_MODULUS_BITS;
  }
}

/** The bit length of a base64url-encoded RSA modulus; 0 when it is not one. */
function modulusBits(n: unknown): number {
  if (typeof n !== 'string' || !/^[A-Za-z0-9_-]+$/.test(n)) return 0;
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(n);
  } catch {
    return 0;
  }
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  if (first === bytes.length) return 0;
  return (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first] ?? 0));
}
