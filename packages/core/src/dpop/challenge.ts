import { proofAlgorithms } from '../config/dpop.js';
import type { ErrorCode } from '../errors/codes.js';
import { OAuthError } from '../errors/oauth-error.js';
import { quoted } from '../http/bearer.js';
import type { Realm } from '../realms/realm.js';

export type DpopErrorCode = Extract<
  ErrorCode,
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
>;

/**
 * The `WWW-Authenticate` challenge of RFC 9449 §7.1: the `DPoP` scheme with the algorithms the
 * realm accepts proofs signed with; without `error` the bare challenge.
 */
export function dpopChallenge(
  realm: Realm,
  error?: { code: DpopErrorCode; description: string; scope?: string },
): string {
  let challenge = `DPoP realm=${quoted(realm.issuer)}`;
  if (error) {
    challenge += `, error=${quoted(error.code)}, error_description=${quoted(error.description)}`;
    if (error.scope !== undefined) challenge += `, scope=${quoted(error.scope)}`;
  }
  return `${challenge}, algs=${quoted(proofAlgorithms(realm.config).join(' '))}`;
}

/** An error of a resource endpoint for a DPoP request: 401 but for insufficient_scope (403). */
export function dpopError(
  realm: Realm,
  code: DpopErrorCode,
  description: string,
  options: { scope?: string } = {},
): OAuthError {
  const challenge = dpopChallenge(realm, { code, description, ...options });
  return new OAuthError(code, description, {
    status: code === 'insufficient_scope' ? 403 : code === 'invalid_request' ? 400 : 401,
    headers: { 'www-authenticate': challenge },
  });
}
