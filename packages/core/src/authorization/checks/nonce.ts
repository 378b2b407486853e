import { redirected } from '../authorization-error.js';
import { includesIdToken } from '../response-type.js';
import { need, type RequestState } from './check.js';

/**
 * OIDC Core 1.0 §3.2.2.1 and §3.3.2.11: a nonce is required when an ID token comes back from the
 * authorization endpoint; optional otherwise, and kept for the ID token.
 */
export function checkNonce({ params, found }: RequestState): void {
  const nonce = params.get('nonce');
  if (includesIdToken(need(found, 'responseType')) && nonce === undefined) {
    throw redirected('nonce_required', 'nonce is required when an id_token is returned');
  }
  if (nonce !== undefined) found.nonce = nonce;
}
