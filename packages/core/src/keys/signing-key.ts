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

/** A realm's published key as the core hands it to `JwsSigner.verify`: its `alg` is always set. */
export type PublicJwk = JWK & { readonly alg: SigningAlgorithm };

/**
 * Produces JWS signatures, and checks those of the realm's own tokens presented back (ID token
 * hints, JWT access tokens). Core ships a WebCrypto signer; `@gatehouse-oidc/node-crypto` provides
 * a faster one built on `node:crypto`. Implementations may cache imported keys, but not by `kid`
 * alone: two realms' key stores may reuse a kid for different keys (`KeyCache` in
 * `@gatehouse-oidc/core/adapter` finds them by material, `signingMaterial` for a signing key).
 * `describeSignerContract` in `@gatehouse-oidc/core/testing` checks an implementation.
 */
export interface JwsSigner {
  /** The raw JWS signature (for ECDSA: r‖s, not DER) of the signing input. */
  sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
  /**
   * Whether `signature` (raw, as `sign` gives it) is `publicKey`'s signature of `signingInput`
   * under the key's `alg`; false for a malformed signature or a key it cannot use. The core has
   * already picked the key by the token's `kid` and `alg` and checks everything else. Optional:
   * without it the core verifies through WebCrypto.
   */
  verify?(
    publicKey: PublicJwk,
    signingInput: Uint8Array<ArrayBuffer>,
    signature: Uint8Array<ArrayBuffer>,
  ): Promise<boolean>;
}

/**
 * What identifies a signing key in a signer's cache: its private JWK and the `alg` it signs
 * with. Its public half or kid would not do: a key store could pair them with another private key.
 */
export const signingMaterial = (key: SigningKey): JWK => ({ ...key.privateJwk, alg: key.alg });
