import { OAuthError } from '../errors/oauth-error.js';
import { accessTokenResponse } from './access-token-response.js';
import type { GrantTypeHandler } from './grant-type.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';
import { requestedScopes, USER_SCOPES } from './scope.js';

/**
 * RFC 6749 §4.4 and docs/interface.md §4.8: an access token owned by the client itself.
 * Confidential web clients only (enforced when the configuration is loaded); no id_token, no
 * refresh_token; `resource` becomes the audience. Without scope, the client's default scopes that
 * need no user.
 */
export const clientCredentialsGrant: GrantTypeHandler = async (
  params,
  client,
  context,
  dpopJkt,
) => {
  const resource = requestedResource(params.get('resource'), context.realm);
  const fallback = client.defaultScopes.filter((scope) => !USER_SCOPES.has(scope));
  const scopes = requestedScopes(params.get('scope'), client, fallback);
  if (scopes.some((scope) => USER_SCOPES.has(scope)))
    throw new OAuthError('invalid_scope', 'a requested scope needs a signed-in user');
  checkScopesCoverResource(scopes, resource);

  return accessTokenResponse(context, client, {
    grantType: 'client_credentials',
    sub: client.id,
    scopes,
    ...(resource ? { resource: resource.uri } : {}),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  });
};
