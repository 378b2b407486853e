import { scopeReleasing } from '../accounts/claims.js';
import type { ConsentRecord } from '../consent/consents.js';
import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { IssuedTokenType } from '../events/events.js';
import { ClosedGrantError } from '../lifecycle/closed-grant.js';
import {
  ConsentRevokedError,
  SessionEndedError,
  sessionFamily,
} from '../lifecycle/session-family.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import type { LoadedSession, SessionRecord } from '../sessions/session.js';
import { sessionState } from '../sessions/session-state.js';
import { CHANGED, untilSettled } from '../store/transition.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { issueAuthorizationCode } from '../tokens/authorization-code.js';
import { issueIdToken } from '../tokens/id-token.js';
import { idTokenHasUserClaims, idTokenUserClaims } from '../tokens/id-token-claims.js';
import { redirected } from './authorization-error.js';
import type { RequestedClaims } from './claims-request.js';
import type { AuthorizationRequest } from './request.js';
import { includesAccessToken, includesCode, includesIdToken } from './response-type.js';

/** What the user agreed to: the scopes to grant, and the scopes whose claims alone may be released. */
export interface Consented {
  scopes: string[];
  claimScopes: readonly string[];
}

/**
 * The success parameters of docs/interface.md §2.3 for an authorized request: a code, an access
 * token and/or an ID token as the response type asks, and `session_state` for OpenID requests.
 * They are issued under the client's grant in the session (see lifecycle/session-family.ts); when
 * that grant turns out revoked (a replayed code revoked it), under a new one, again each time
 * concurrent replays revoke the new one, until a grant holds (503 if none does).
 */
export async function issueAuthorizationResponse(
  context: RealmContext,
  request: AuthorizationRequest,
  session: LoadedSession,
  consented: Consented,
  consent: ConsentRecord,
): Promise<Record<string, string>> {
  let current = session;
  let replacing: string | undefined;
  return untilSettled(async () => {
    const granted = await grantOf(context, current, consent, replacing);
    try {
      return await issueUnderGrant(
        context,
        request,
        granted.session.record,
        consented,
        granted.grantId,
      );
    } catch (error) {
      if (!(error instanceof ClosedGrantError)) throw error;
      replacing = granted.grantId;
      current = granted.session;
      return CHANGED;
    }
  }, "the client's grant in the session");
}

/** `sessionFamily`, whose races with a logout or a revocation end the authorization. */
async function grantOf(...args: Parameters<typeof sessionFamily>) {
  try {
    return await sessionFamily(...args);
  } catch (error) {
    if (error instanceof SessionEndedError)
      throw redirected('login_required', 'the session ended during the authorization');
    if (error instanceof ConsentRevokedError)
      throw redirected('consent_required', 'the consent was revoked during the authorization');
    throw error;
  }
}

async function issueUnderGrant(
  context: RealmContext,
  request: AuthorizationRequest,
  session: SessionRecord,
  consented: Consented,
  grantId: string,
): Promise<Record<string, string>> {
  const { scopes } = consented;
  const grant: TokenFamily = {
    grantId,
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
  const claims = request.claims && releasedClaims(request.claims, consented);
  if (claims) grant.claims = claims;

  const params: Record<string, string> = {};
  let accessJti: string | undefined;
  const type = request.responseType;
  if (includesCode(type)) {
    params.code = await issueAuthorizationCode(context, {
      ...grant,
      redirectUri: request.redirectUri,
      ...(request.codeChallenge === undefined ? {} : { codeChallenge: request.codeChallenge }),
      ...(request.dpopJkt === undefined ? {} : { dpopJkt: request.dpopJkt }),
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
      ...(grant.claims ? { userinfoClaims: grant.claims.userinfo } : {}),
    });
    if (issued.grantClosed) throw new ClosedGrantError();
    accessJti = issued.record.jti;
    params.access_token = issued.token;
    params.token_type = 'Bearer';
    params.expires_in = String(issued.expiresIn);
    params.scope = scopes.join(' ');
  }
  if (includesIdToken(type)) {
    const withAccessToken = params.access_token !== undefined || params.code !== undefined;
    params.id_token = await issueIdToken(context, {
      grant,
      ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
      ...(await idTokenClaims(context, grant, withAccessToken)),
      ...(params.access_token === undefined ? {} : { accessToken: params.access_token }),
      ...(params.code === undefined ? {} : { code: params.code }),
    });
  }
  emitFrontChannelTokens(context, grant, params, accessJti);
  if (scopes.includes('openid')) {
    params.session_state = sessionState(
      request.clientId,
      request.redirectUri,
      session.browserState,
    );
  }
  return params;
}

/** The token_issued event of the tokens the authorization endpoint itself returns, if any. */
function emitFrontChannelTokens(
  context: RealmContext,
  grant: TokenFamily,
  params: Record<string, string>,
  accessJti: string | undefined,
): void {
  const tokens: IssuedTokenType[] = [];
  if (params.access_token !== undefined) tokens.push('access_token');
  if (params.id_token !== undefined) tokens.push('id_token');
  if (tokens.length === 0) return;
  emitEvent(context, {
    type: 'token_issued',
    grantType: 'implicit',
    clientId: grant.clientId,
    sub: grant.sub,
    ...(grant.sid === undefined ? {} : { sid: grant.sid }),
    grantId: grant.grantId,
    ...(accessJti === undefined ? {} : { jti: accessJti }),
    scopes: [...grant.scopes],
    tokens,
  });
}

/**
 * The user's claims the front-channel ID token carries, if any (tokens/id-token-claims.ts). A code
 * counts as an access token: the client will have one to call userinfo with.
 */
async function idTokenClaims(
  context: RealmContext,
  grant: TokenFamily,
  withAccessToken: boolean,
): Promise<{ claims?: Record<string, unknown> }> {
  const client = context.realm.clients.get(grant.clientId);
  if (!idTokenHasUserClaims(grant, client, withAccessToken)) return {};
  const account = await context.accounts.findAccount(context.realm.name, grant.sub);
  if (!account) throw redirected('login_required', 'the signed-in account no longer exists');
  return {
    claims: idTokenUserClaims(account.claims, grant, client, grant.scopes, withAccessToken),
  };
}

/**
 * The claims asked for by name that the user agreed to: those a granted scope, or a scope
 * consented to for its claims, releases; `acr` always.
 */
function releasedClaims(requested: RequestedClaims, consented: Consented): RequestedClaims {
  const agreed = new Set([...consented.scopes, ...consented.claimScopes]);
  const released = (names: readonly string[]) =>
    names.filter((name) => name === 'acr' || scopeReleasing(name, agreed) !== undefined);
  return { userinfo: released(requested.userinfo), id_token: released(requested.id_token) };
}
