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

/** A realm's published key as the key store gives it to the core: its `alg` is always set. */
export type PublicJwk = JWK & { readonly alg: SigningAlgorithm };

/**
 * Produces JWS signatures with the realm's keys. Core ships a WebCrypto signer;
 * `@gatehouse-oidc/node-crypto` provides a faster one built on `node:crypto`. Implementations may
 * cache imported keys, but not by `kid` alone: two realms' key stores may reuse a kid for
 * different keys (`KeyCache` in `@gatehouse-oidc/core/adapter` finds them by material,
 * `signingMaterial` for a signing key). Signatures are checked by the `JwsVerifier`.
 * `describeSignerContract` in `@gatehouse-oidc/core/testing` checks an implementation.
 */
export interface JwsSigner {
  /** The raw JWS signature (for ECDSA: r‖s, not DER) of the signing input. */
  sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
  /**
   * A new key pair for `alg` (RS256 and PS256: 2048-bit RSA; EdDSA: Ed25519), as JWKs. Optional:
   * the provider's key store makes a realm's keys with it when the signer has it, with WebCrypto
   * otherwise. `nodeCryptoSigner` makes EC and Ed25519 keys in process, where WebCrypto's
   * round trip through the thread pool cost several times the key itself at a realm's first
   * token (docs/performance.md).
   */
  generateKeyPair?(alg: SigningAlgorithm): Promise<KeyPairJwks>;
}

/** A key pair as two JWKs, without `kid`, `alg` or `use`. */
export interface KeyPairJwks {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/**
 * What identifies a signing key in a signer's cache: its private JWK and the `alg` it signs
 * with. Its public half or kid would not do: a key store could pair them with another private key.
 */
export const signingMaterial = (key: SigningKey): JWK => ({ ...key.privateJwk, alg: key.alg });
