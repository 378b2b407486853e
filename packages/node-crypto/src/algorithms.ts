import { constants, createPrivateKey, createPublicKey, type SignKeyObjectInput } from 'node:crypto';
import type { PublicJwk, SigningAlgorithm, SigningKey } from '@gatehouse-oidc/core';

/**
 * What `node:crypto.sign` (or `verify`, for a public key) needs for one key: the digest name and
 * the KeyObject with its options.
 */
export interface PreparedKey {
  readonly digest: string | null;
  readonly key: SignKeyObjectInput;
}

/** Per JWS algorithm: the digest `sign` is given and the options beside the KeyObject. */
const ALGORITHMS: Record<
  SigningAlgorithm,
  { digest: string | null; options: Omit<SignKeyObjectInput, 'key'> }
> = {
  // JWS wants r‖s (RFC 7518 §3.4), not the DER node:crypto produces by default.
  ES256: { digest: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  // Ed25519 hashes internally; node:crypto takes no digest for it.
  EdDSA: { digest: null, options: {} },
  RS256: { digest: 'sha256', options: {} },
  PS256: {
    digest: 'sha256',
    options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
  },
};

/** Turns the private JWK into a KeyObject once; the result is reused for every signature. */
export function prepareKey(key: SigningKey): PreparedKey {
  const { digest, options } = ALGORITHMS[key.alg];
  return {
    digest,
    key: { ...options, key: createPrivateKey({ key: key.privateJwk, format: 'jwk' }) },
  };
}

/** The same for a published key, to verify with under its own `alg`. */
export function preparePublicKey(publicKey: PublicJwk): PreparedKey {
  const { digest, options } = ALGORITHMS[publicKey.alg];
  return {
    digest,
    key: { ...options, key: createPublicKey({ key: publicKey, format: 'jwk' }) },
  };
}
