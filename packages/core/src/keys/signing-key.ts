import type { JWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';

/** A realm signing key. `privateJwk` never leaves the key store and the signer. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateJwk: JWK;
  /** The public half as published in the JWKS (`kid`, `alg`, `use: "sig"` set). */
  readonly publicJwk: JWK;
  /** Seconds since the epoch. */
  readonly createdAt: number;
}

/**
 * Produces JWS signatures. Core ships a WebCrypto signer; `@gatehouse-oidc/node-crypto` provides a
 * faster one built on `node:crypto`. Implementations may cache imported keys by `kid`.
 */
export interface JwsSigner {
  /** The raw JWS signature (for ECDSA: r‖s, not DER) of the signing input. */
  sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
}
