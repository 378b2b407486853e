import { exportJWK, generateKeyPair } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import { jwkThumbprint } from '../dpop/thumbprint.js';
import type { SigningKey } from './signing-key.js';

/** A fresh key pair for `alg`; the kid is the RFC 7638 thumbprint of the public key. */
export async function generateSigningKey(
  alg: SigningAlgorithm,
  nowSeconds: number,
): Promise<SigningKey> {
  const options = alg === 'EdDSA' ? { extractable: true, crv: 'Ed25519' } : { extractable: true };
  const pair = await generateKeyPair(alg, options);
  const privateJwk = await exportJWK(pair.privateKey);
  const publicJwk = await exportJWK(pair.publicKey);
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
