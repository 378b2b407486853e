import { requestedScopes } from '../../grant-types/scope.js';
import { redirected } from '../authorization-error.js';
import { includesIdToken } from '../response-type.js';
import { type RequestState, redirectedOnError } from './check.js';

/**
 * RFC 6749 §3.3: scopes the client may ask for (its default ones when none are named), at least
 * one; OIDC Core 1.0 §3.1.2.1: a response type with an ID token needs `openid`.
 */
export function checkScope({ params, client, found }: RequestState): void {
  const scopes = redirectedOnError(
    () => requestedScopes(params.get('scope'), client, client.defaultScopes),
    'invalid_scope',
  );
  if (scopes.length === 0) throw redirected('invalid_scope', 'no scope was requested');
  const type = found.responseType;
  if (type !== undefined && includesIdToken(type) && !scopes.includes('openid')) {
    throw redirected('invalid_scope', 'an id_token needs the openid scope');
  }
  found.scopes = scopes;
}
