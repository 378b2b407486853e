import type { JWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';

/** The smallest RSA modulus accepted, in bytes: 2048 bits, as jose and RFC 7518 §3.3 require. */
const MIN_RSA_MODULUS_BYTES = 256;

/**
 * Whether a published key can verify `alg` at all: its own `alg` is `alg`, its type and curve are
 * the algorithm's, an RSA modulus is at least 2048 bits, and it is meant for signatures. What
 * jose checked on import before the core verified through the signer; a key store handing out a
 * weak or mislabelled key then verifies nothing instead of something.
 */
export function keyFitsAlgorithm(key: JWK, alg: SigningAlgorithm): boolean {
  if (key.alg !== alg || (key.use !== undefined && key.use !== 'sig')) return false;
  if (key.key_ops !== undefined && !key.key_ops.includes('verify')) return false;
  switch (alg) {
    case 'ES256':
      return key.kty === 'EC' && key.crv === 'P-256';
    case 'EdDSA':
      return key.kty === 'OKP' && key.crv === 'Ed25519';
    case 'RS256':
    case 'PS256':
      return key.kty === 'RSA' && modulusBytes(key.n) >= MIN_RSA_MODULUS_BYTES;
  }
}

/** The length of a base64url-encoded RSA modulus in bytes (a JWK's `n` has no leading zeros). */
const modulusBytes = (n: string | undefined) =>
  n === undefined ? 0 : Math.floor((n.length * 3) / 4);
