import { claimsForScopes } from '../accounts/claims.js';
import type { RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import type { SessionRecord } from '../sessions/session.js';
import { sessionState } from '../sessions/session-state.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { issueAuthorizationCode } from '../tokens/authorization-code.js';
import { issueIdToken } from '../tokens/id-token.js';
import type { UserGrant } from '../tokens/user-grant.js';
import { redirected } from './authorization-error.js';
import type { AuthorizationRequest } from './request.js';
import { includesAccessToken, includesCode, includesIdToken } from './response-type.js';

/**
 * The success parameters of interface §2.3 for an authorized request: a code, an access token
 * and/or an ID token as the response type asks, and `session_state` for OpenID requests.
 */
export async function issueAuthorizationResponse(
  context: RealmContext,
  request: AuthorizationRequest,
  session: SessionRecord,
  scopes: string[],
): Promise<Record<string, string>> {
  const grant: UserGrant = {
    grantId: randomId(16),
    realm: context.realm.name,
    sub: session.sub,
    clientId: request.clientId,
    scopes,
    authTime: session.authTime,
    sid: session.sid,
  };
  if (request.resource !== undefined) grant.resource = request.resource;
  if (session.acr !== undefined) grant.acr = session.acr;
  if (session.amr !== undefined) grant.amr = session.amr;

  const params: Record<string, string> = {};
  const type = request.responseType;
  if (includesCode(type)) {
    params.code = await issueAuthorizationCode(context, {
      ...grant,
      redirectUri: request.redirectUri,
      ...(request.codeChallenge === undefined ? {} : { codeChallenge: request.codeChallenge }),
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    });
  }
  if (includesAccessToken(type)) {
    const issued = await issueAccessToken(context, {
      sub: grant.sub,
      clientId: grant.clientId,
      scopes,
      grantId: grant.grantId,
      ...(grant.resource === undefined ? {} : { resource: grant.resource }),
    });
    params.access_token = issued.token;
    params.token_type = 'Bearer';
    params.expires_in = String(issued.expiresIn);
    params.scope = scopes.join(' ');
  }
  if (includesIdToken(type)) {
    params.id_token = await issueIdToken(context, {
      grant,
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
      // OIDC Core §5.4: claims go in the ID token only when no access token is issued at all.
      ...(type === 'id_token' ? { claims: await userClaims(context, grant) } : {}),
      ...(params.access_token === undefined ? {} : { accessToken: params.access_token }),
      ...(params.code === undefined ? {} : { code: params.code }),
    });
  }
  if (scopes.includes('openid')) {
    params.session_state = sessionState(
      request.clientId,
      request.redirectUri,
      session.browserState,
    );
  }
  return params;
}

/** Without an access token to call userinfo with, the claims travel in the ID token. */
async function userClaims(
  context: RealmContext,
  grant: UserGrant,
): Promise<Record<string, unknown>> {
  const account = await context.accounts.findAccount(context.realm.name, grant.sub);
  if (!account) throw redirected('login_required', 'the signed-in account no longer exists');
  return claimsForScopes(account.claims, grant.scopes);
}
