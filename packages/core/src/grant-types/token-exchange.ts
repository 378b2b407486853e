import { TOKEN_EXCHANGE_GRANT_TYPE } from '../config/client.js';
import type { ResourceConfig } from '../config/resource.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import type { Client, Realm } from '../realms/realm.js';
import { accessTokenResponse } from './access-token-response.js';
import {
  ACCESS_TOKEN_TYPE,
  delegatedActor,
  type ExchangedParty,
  exchangedParty,
} from './exchange-tokens.js';
import type { GrantTypeHandler } from './grant-type.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';
import { scopeTokens } from './scope.js';

/**
 * OAuth 2.0 Token Exchange (RFC 8693): an access token (or ID token) of this realm, held by the
 * client, for an access token whose audience is one of the resources in the client's
 * `token_exchange.resources`. With an `actor_token` the new token says who acts for the subject
 * (`act`, delegation); without, it stands for the subject alone (impersonation). It belongs to the
 * subject token's grant, so revoking that grant ends it too, and never outlives the subject token.
 */
export const tokenExchangeGrant: GrantTypeHandler = async (params, client, context, dpopJkt) => {
  const requestedType = params.get('requested_token_type');
  if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE)
    throw new OAuthError('invalid_request', 'only access tokens are issued by token exchange');
  const resource = exchangeTarget(params, client, context.realm);
  if (params.has('actor_token_type') && !params.has('actor_token'))
    throw new OAuthError('invalid_request', 'actor_token_type is only sent with actor_token');
  const [subject, actor] = await Promise.all([
    exchangedParty(params, 'subject', client, context),
    params.has('actor_token') ? exchangedParty(params, 'actor', client, context) : undefined,
  ]);
  const scopes = exchangedScopes(params.get('scope'), subject, resource);
  const act = actor ? delegatedActor(subject, actor) : subject.act;

  return accessTokenResponse(context, client, {
    grantType: TOKEN_EXCHANGE_GRANT_TYPE,
    sub: subject.sub,
    scopes,
    resource: resource.uri,
    notAfter: subject.exp,
    ...(subject.grantId === undefined ? {} : { grantId: subject.grantId }),
    ...(act === undefined ? {} : { act }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
    extra: { issued_token_type: ACCESS_TOKEN_TYPE },
  });
};

/**
 * The resource the token is for (RFC 8693 §2.1): `resource`, or `audience` naming one; it must be
 * among the client's `token_exchange.resources` (invalid_target).
 */
function exchangeTarget(params: Params, client: Client, realm: Realm): ResourceConfig {
  const resource = params.get('resource');
  const audience = params.get('audience');
  if (resource !== undefined && audience !== undefined && resource !== audience)
    throw new OAuthError('invalid_target', 'resource and audience name different targets');
  const uri = resource ?? audience;
  if (uri === undefined)
    throw new OAuthError('invalid_request', 'resource or audience is required');
  if (!client.config.token_exchange?.resources.includes(uri))
    throw new OAuthError('invalid_target', 'this client may not exchange tokens for that resource');
  const declared = requestedResource(uri, realm);
  if (!declared) throw new OAuthError('invalid_target', 'resource is not a Protected Resource');
  return declared;
}

/**
 * `scope` narrows the subject token's scopes and never widens them (invalid_scope). Without it,
 * the subject's scopes that belong to the resource (all of them for a resource that declares
 * none).
 */
function exchangedScopes(
  scope: string | undefined,
  subject: ExchangedParty,
  resource: ResourceConfig,
): string[] {
  let scopes: string[];
  if (scope !== undefined) {
    scopes = scopeTokens(scope);
    if (!scopes.every((token) => subject.scopes.includes(token)))
      throw new OAuthError('invalid_scope', "scope goes beyond the subject token's scopes");
  } else {
    scopes = subject.scopes.filter(
      (token) => resource.scopes.length === 0 || resource.scopes.includes(token),
    );
  }
  checkScopesCoverResource(scopes, resource);
  return scopes;
}
