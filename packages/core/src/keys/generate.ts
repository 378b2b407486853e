import { exportJWK, generateKeyPair } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import { jwkThumbprint } from '../dpop/thumbprint.js';
import type { KeyPairJwks, SigningKey } from './signing-key.js';

/** Makes a key pair for `alg`: a signer's own (`JwsSigner.generateKeyPair`) or WebCrypto's. */
export type KeyPairMaker = (alg: SigningAlgorithm) => Promise<KeyPairJwks>;

/** A key pair made with WebCrypto (through jose). */
export async function webCryptoKeyPair(alg: SigningAlgorithm): Promise<KeyPairJwks> {
  const options = alg === 'EdDSA' ? { extractable: true, crv: 'Ed25519' } : { extractable: true };
  const pair = await generateKeyPair(alg, options);
  return {
    privateJwk: await exportJWK(pair.privateKey),
    publicJwk: await exportJWK(pair.publicKey),
  };
}

/**
 * A fresh key pair for `alg`, made by `makePair`; the kid is the RFC 7638 thumbprint of the
 * public key.
 */
export async function generateSigningKey(
  alg: SigningAlgorithm,
  nowSeconds: number,
  makePair: KeyPairMaker = webCryptoKeyPair,
): Promise<SigningKey> {
  const { privateJwk, publicJwk } = await makePair(alg);
  // Hashed in process: WebCrypto's digest round trip to the thread pool was a tenth of what a
  // realm's first request costs.
  const kid = jwkThumbprint(publicJwk);
  if (kid === undefined) throw new Error(`no thumbprint for a generated ${alg} key`);
  return {
    kid,
    alg,
    privateJwk: { ...privateJwk, kid, alg },
    publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
    createdAt: nowSeconds,
  };
}
