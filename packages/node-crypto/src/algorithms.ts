import {
  constants,
  createPrivateKey,
  generateKeyPair,
  generateKeyPairSync,
  type KeyObject,
  type SignKeyObjectInput,
} from 'node:crypto';
import { promisify } from 'node:util';
import type {
  KeyPairJwks,
  SigningAlgorithm,
  SigningKey,
  VerificationAlgorithm,
} from '@gatehouse-oidc/core';

/**
 * What `node:crypto.sign` needs for one key: the digest name and the KeyObject with its options.
 */
export interface PreparedKey {
  readonly digest: string | null;
  readonly key: SignKeyObjectInput;
}

/** How `node:crypto` signs and verifies one JWS algorithm: its digest and the key's options. */
export interface NodeAlgorithm {
  readonly digest: string | null;
  readonly options: Omit<SignKeyObjectInput, 'key'>;
}

const rsa = (bits: 256 | 384 | 512): NodeAlgorithm => ({ digest: `sha${bits}`, options: {} });
// The salt is as long as the hash (RFC 7518 §3.5).
const pss = (bits: 256 | 384 | 512): NodeAlgorithm => ({
  digest: `sha${bits}`,
  options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: bits / 8 },
});
// JWS wants r‖s (RFC 7518 §3.4), not the DER node:crypto produces by default.
const ecdsa = (bits: 256 | 384 | 512): NodeAlgorithm => ({
  digest: `sha${bits}`,
  options: { dsaEncoding: 'ieee-p1363' },
});
// Ed25519 hashes internally; node:crypto takes no digest for it.
const ed25519: NodeAlgorithm = { digest: null, options: {} };

/** Per JWS algorithm: the digest `sign` and `verify` are given and the options beside the KeyObject. */
export const NODE_ALGORITHMS: Record<VerificationAlgorithm, NodeAlgorithm> = {
  RS256: rsa(256),
  RS384: rsa(384),
  RS512: rsa(512),
  PS256: pss(256),
  PS384: pss(384),
  PS512: pss(512),
  ES256: ecdsa(256),
  ES384: ecdsa(384),
  ES512: ecdsa(512),
  EdDSA: ed25519,
  Ed25519: ed25519,
};

/**
 * Turns the private JWK into a KeyObject once, or takes `made`, the KeyObject it was exported
 * from; the result is reused for every signature.
 */
export function prepareKey(key: SigningKey, made?: KeyObject): PreparedKey {
  const { digest, options } = NODE_ALGORITHMS[key.alg];
  return {
    digest,
    key: { ...options, key: made ?? createPrivateKey({ key: key.privateJwk, format: 'jwk' }) },
  };
}

const generateRsaKeyPair = promisify(generateKeyPair);

/**
 * A new key pair for `alg` as JWKs, with the private KeyObject they were exported from. EC and
 * Ed25519 keys are made on the event loop: a P-256 key
 * takes tens of microseconds, less than the thread pool's round trip WebCrypto makes for it. An
 * RSA key takes tens of milliseconds and is made on the thread pool.
 */
export async function generateKeyPairJwks(
  alg: SigningAlgorithm,
): Promise<{ jwks: KeyPairJwks; privateKey: KeyObject }> {
  const { privateKey, publicKey } = await keyPairFor(alg);
  return {
    jwks: {
      privateJwk: privateKey.export({ format: 'jwk' }),
      publicJwk: publicKey.export({ format: 'jwk' }),
    },
    privateKey,
  };
}

async function keyPairFor(
  alg: SigningAlgorithm,
): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  switch (alg) {
    case 'ES256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case 'EdDSA':
      return generateKeyPairSync('ed25519');
    case 'RS256':
    case 'PS256':
      return generateRsaKeyPair('rsa', { modulusLength: 2048 });
  }
}
