import type { CryptoKey } from 'jose';
import { ASYMMETRIC_ASSERTION_ALGORITHMS } from '../config/client.js';

/**
 * The asymmetric JWS algorithms (RFC 7518 §3, RFC 8037) the core verifies: the realm's own, and
 * what clients, DPoP keys and trusted issuers may sign with. Never `none`, never HMAC.
 */
export type VerificationAlgorithm = (typeof ASYMMETRIC_ASSERTION_ALGORITHMS)[number];

export const isVerificationAlgorithm = (alg: unknown): alg is VerificationAlgorithm =>
  (ASYMMETRIC_ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg);

/**
 * Checks JWS signatures made with public keys: DPoP proofs, client assertions, request objects,
 * jwt-bearer assertions and the realm's own tokens presented back. Only the signature: the core
 * parses the token, pins the algorithms, picks and imports the key (refusing one that is not a
 * public key imported for `alg`) and checks every claim. Core ships a WebCrypto verifier;
 * `@gatehouse-oidc/node-crypto` provides a faster one on `node:crypto`. `describeVerifierContract`
 * in `@gatehouse-oidc/core/testing` checks an implementation.
 */
export interface JwsVerifier {
  /**
   * Whether `signature` (raw, as in the JWS: r‖s for ECDSA, not DER) is `key`'s signature of
   * `signingInput` under `alg`; false for a malformed signature, never a rejection for one.
   */
  verify(
    alg: VerificationAlgorithm,
    key: CryptoKey,
    signingInput: Uint8Array<ArrayBuffer>,
    signature: Uint8Array<ArrayBuffer>,
  ): Promise<boolean>;
}
