import { claimsForScopes, pickClaims } from '../accounts/claims.js';
import { findClient } from '../client-metadata/find-client.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { dpopChallenge, dpopError } from '../dpop/challenge.js';
import { withDpopNonce } from '../dpop/nonce-header.js';
import { checkTokenBinding, presentedAccessToken } from '../dpop/resource-request.js';
import { OAuthError } from '../errors/oauth-error.js';
import { type BearerErrorCode, bearerChallenge, bearerError } from '../http/bearer.js';
import { withClientCors, withRealmCors } from '../http/cors.js';
import { parseUrlEncoded } from '../http/form.js';
import { emptyResponse, NO_STORE_HEADERS, noStoreJson } from '../http/responses.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import { findAccessToken } from '../tokens/find-access-token.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * The UserInfo endpoint (OIDC Core 1.0 §5.3, docs/interface.md §4.5 and §2.7): the claims the
 * user's granted scopes release, for an access token in the `Authorization` header: Bearer (RFC
 * 6750 §2.1), or DPoP with its proof for a DPoP-bound token (RFC 9449 §7). The token is never
 * accepted from the URL or the body (RFC 9700 §2.5). The claims are readable from the origins of
 * the token's client (CORS); the provider answers the preflight.
 */
export const userinfoEndpoint: EndpointHandler = withDpopNonce(async (request, context) => {
  const { realm } = context;
  let dpop = false;
  const fail = (code: BearerErrorCode, description: string, scope?: string) => {
    const options = scope === undefined ? {} : { scope };
    return dpop
      ? dpopError(realm, code, description, options)
      : bearerError(realm.issuer, code, description, options);
  };

  if (tokenInQuery(request.query, fail)) {
    throw fail('invalid_request', 'the access token must be sent in the Authorization header');
  }
  if (request.method === 'POST' && hasBody(request)) {
    throw fail('invalid_request', 'the request body must be empty');
  }
  const presented = presentedAccessToken(request, context);
  if (presented === undefined) {
    const challenge = emptyResponse(401, {
      ...NO_STORE_HEADERS,
      'www-authenticate': `${bearerChallenge(realm.issuer)}, ${dpopChallenge(realm)}`,
    });
    return withRealmCors(challenge, request, realm);
  }
  dpop = presented.scheme === 'DPoP';

  const record = (await findAccessToken(context, presented.token))?.record;
  if (!record) throw fail('invalid_token', 'the access token is invalid, expired or revoked');
  await checkTokenBinding(request, context, realm.url(ENDPOINT_PATHS.userinfo), presented, record);
  // RFC 8707: a token for a Protected Resource is that resource's, not a key to the user's claims.
  if (record.resource !== undefined) {
    throw fail('invalid_token', 'the access token is for a Protected Resource, not for userinfo');
  }
  const scopes = record.scope.split(' ');
  if (!scopes.includes('openid')) {
    throw fail('insufficient_scope', 'the access token was not granted the openid scope', 'openid');
  }
  const account = await context.accounts.findAccount(realm.name, record.sub);
  if (!account) throw fail('invalid_token', 'the user of the access token no longer exists');

  const claims = noStoreJson(200, {
    ...claimsForScopes(account.claims, scopes),
    ...(record.userinfo_claims ? pickClaims(account.claims, record.userinfo_claims) : {}),
    sub: record.sub,
    iss: realm.issuer,
    aud: record.client_id,
    iat: record.iat,
    nbf: record.nbf,
    exp: record.exp,
  });
  return withClientCors(claims, request, await clientForCors(context, record.client_id));
});

/**
 * The client a token was issued to, for its origins: configured, registered or described by its
 * document. None when it cannot be had now (its document no longer makes a client): the claims
 * are then readable by no script, and still answered.
 */
async function clientForCors(context: RealmContext, clientId: string): Promise<Client | undefined> {
  try {
    return await findClient(context, clientId);
  } catch (error) {
    if (error instanceof OAuthError) return undefined;
    throw error;
  }
}

function tokenInQuery(
  query: string,
  fail: (code: BearerErrorCode, description: string) => OAuthError,
): boolean {
  if (query === '') return false;
  try {
    return parseUrlEncoded(query).has('access_token');
  } catch (error) {
    if (error instanceof OAuthError) throw fail('invalid_request', error.description ?? error.code);
    throw error;
  }
}

function hasBody(request: GatehouseRequest): boolean {
  if (request.form) return request.form.length > 0;
  return request.body !== undefined && request.body.length > 0;
}
