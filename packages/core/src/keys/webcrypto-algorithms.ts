import type { CryptoKey } from 'jose';
import type { VerificationAlgorithm } from './jws-verifier.js';
import { MIN_RSA_MODULUS_BITS } from './key-fits-algorithm.js';

/**
 * A JWS algorithm as WebCrypto knows it: the parameters `sign` and `verify` take (WebCrypto
 * reads the members its algorithm needs) and what an imported key's `algorithm` must say.
 */
interface WebCryptoAlgorithm {
  readonly name: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS' | 'ECDSA' | 'Ed25519';
  readonly hash?: 'SHA-256' | 'SHA-384' | 'SHA-512';
  readonly namedCurve?: 'P-256' | 'P-384' | 'P-521';
  /** RSA-PSS: the salt is as long as the hash (RFC 7518 §3.5). */
  readonly saltLength?: number;
}

const rsa = (hash: 256 | 384 | 512) =>
  ({ name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${hash}` }) as const;
const pss = (hash: 256 | 384 | 512) =>
  ({ name: 'RSA-PSS', hash: `SHA-${hash}`, saltLength: hash / 8 }) as const;
const ecdsa = (hash: 256 | 384 | 512, namedCurve: 'P-256' | 'P-384' | 'P-521') =>
  ({ name: 'ECDSA', hash: `SHA-${hash}`, namedCurve }) as const;

export const WEBCRYPTO_ALGORITHMS: Record<VerificationAlgorithm, WebCryptoAlgorithm> = {
  RS256: rsa(256),
  RS384: rsa(384),
  RS512: rsa(512),
  PS256: pss(256),
  PS384: pss(384),
  PS512: pss(512),
  ES256: ecdsa(256, 'P-256'),
  ES384: ecdsa(384, 'P-384'),
  ES512: ecdsa(512, 'P-521'),
  EdDSA: { name: 'Ed25519' },
  Ed25519: { name: 'Ed25519' },
};

/**
 * Whether `key` is a public key imported to verify `alg`: its algorithm, hash and curve are
 * `alg`'s and an RSA modulus has at least 2048 bits — what jose checks before it verifies, so a
 * key imported for RS256 never verifies PS256 and a weak key verifies nothing.
 */
export function cryptoKeyVerifies(key: CryptoKey, alg: VerificationAlgorithm): boolean {
  const expected = WEBCRYPTO_ALGORITHMS[alg];
  const algorithm = key.algorithm as {
    name: string;
    hash?: { name: string };
    namedCurve?: string;
    modulusLength?: number;
  };
  if (key.type !== 'public' || !key.usages.includes('verify')) return false;
  if (algorithm.name !== expected.name) return false;
  if (expected.namedCurve !== undefined) return algorithm.namedCurve === expected.namedCurve;
  if (expected.hash !== undefined)
    return (
      algorithm.hash?.name === expected.hash &&
      (algorithm.modulusLength ?? 0) >= MIN_RSA_MODULUS_BITS
    );
  return true;
}
