import { redirected } from '../authorization/authorization-error.js';
import type { Params } from '../http/form.js';

/** A base64url SHA-256 thumbprint (RFC 7638): 43 characters. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The authorization request's `dpop_jkt` (RFC 9449 §10): the thumbprint of the key the code will
 * be bound to, so only a token request with a proof by that key can redeem it.
 */
export function requestedDpopJkt(params: Params): string | undefined {
  const jkt = params.get('dpop_jkt');
  if (jkt !== undefined && !THUMBPRINT.test(jkt)) {
    throw redirected('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint');
  }
  return jkt;
}
