import { JWT_BEARER_GRANT_TYPE } from '../config/client.js';
import type { ResourceConfig } from '../config/resource.js';
import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import type { Client } from '../realms/realm.js';
import { accessTokenResponse } from './access-token-response.js';
import type { GrantTypeHandler } from './grant-type.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';
import { requestedScopes, scopeTokens } from './scope.js';
import {
  consumeTrustedAssertion,
  type TrustedAssertion,
  verifyTrustedAssertion,
} from './trusted-assertion.js';

interface JwtBearerToken {
  scopes: string[];
  resource: ResourceConfig | undefined;
}

/**
 * The JWT bearer authorization grant (RFC 7523 §2.1) from the realm's trusted issuers. An
 * `id-jag` issuer's assertion (Identity Assertion JWT Authorization Grant) names the client, the
 * resource and the scopes itself; a plain `assertion` names the subject, and the request asks for
 * scope and resource as client credentials would. Either way the subject must be an account of the
 * realm, the token belongs to no grant, and the assertion is accepted once.
 */
export const jwtBearerGrant: GrantTypeHandler = async (params, client, context, dpopJkt) => {
  const assertion = params.get('assertion');
  if (assertion === undefined) throw new OAuthError('invalid_request', 'assertion is required');
  const verified = await verifyTrustedAssertion(assertion, context);
  const { scopes, resource } =
    verified.trusted.profile === 'id-jag'
      ? idJagToken(verified, params, client, context)
      : plainAssertionToken(params, client, context);
  const { sub } = verified.payload;
  if (!(await context.accounts.findAccount(context.realm.name, sub)))
    throw new OAuthError('invalid_grant', 'assertion subject is not an account of this realm');
  await consumeTrustedAssertion(verified, context);

  return accessTokenResponse(context, client, {
    grantType: JWT_BEARER_GRANT_TYPE,
    sub,
    scopes,
    ...(resource ? { resource: resource.uri } : {}),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  });
};

/**
 * An ID-JAG is for the client it names and the resource it names (a `resource` parameter may only
 * repeat it); its scopes are those of the assertion the client may have, narrowed by `scope`.
 */
function idJagToken(
  { payload }: TrustedAssertion,
  params: Params,
  client: Client,
  context: RealmContext,
): JwtBearerToken {
  if (payload.client_id !== client.id)
    throw new OAuthError('invalid_grant', 'assertion was issued for another client');
  const { resource: uri } = payload;
  const resource = typeof uri === 'string' ? context.realm.resources.get(uri) : undefined;
  if (!resource)
    throw new OAuthError(
      'invalid_grant',
      'assertion resource is not a Protected Resource of this realm',
    );
  const requestedUri = params.get('resource');
  if (requestedUri !== undefined && requestedUri !== resource.uri)
    throw new OAuthError('invalid_target', 'resource differs from the resource of the assertion');

  const asserted = typeof payload.scope === 'string' ? scopeTokens(payload.scope) : [];
  const allowed = asserted.filter((scope) => client.scopes.has(scope));
  const requested = params.get('scope');
  const scopes = requested === undefined ? allowed : scopeTokens(requested);
  if (!scopes.every((scope) => allowed.includes(scope)))
    throw new OAuthError('invalid_scope', 'scope goes beyond what the assertion grants the client');
  if (scopes.length === 0)
    throw new OAuthError('invalid_scope', 'the assertion grants no scope this client may have');
  checkScopesCoverResource(scopes, resource);
  return { scopes, resource };
}

/** A plain RFC 7523 assertion: scope and resource come from the request, within the client's. */
function plainAssertionToken(
  params: Params,
  client: Client,
  context: RealmContext,
): JwtBearerToken {
  const resource = requestedResource(params.get('resource'), context.realm);
  const scopes = requestedScopes(params.get('scope'), client, client.defaultScopes);
  checkScopesCoverResource(scopes, resource);
  return { scopes, resource };
}
