import { OAuthError } from '../../errors/oauth-error.js';
import { requestedScopes } from '../../grant-types/scope.js';
import type { RequestState } from './check.js';

/**
 * CIBA Core 1.0 §7.1: scopes the client may ask for (all of its scopes when none are named), and
 * `openid` among them, since the request ends in an ID token.
 */
export function checkCibaScope({ params, client, found }: RequestState): void {
  const scopes = requestedScopes(params.get('scope'), client, [...client.scopes]);
  if (!scopes.includes('openid'))
    throw new OAuthError('invalid_scope', 'a backchannel request needs the openid scope');
  found.scopes = scopes;
}
