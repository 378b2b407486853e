import type { Account } from '../accounts/accounts.js';
import type { ResourceConfig } from '../config/resource.js';
import type { RealmContext } from '../context.js';
import { refreshTokenKey } from '../dpop/key-binding.js';
import { OAuthError } from '../errors/oauth-error.js';
import { emitEvent } from '../events/emit.js';
import type { IssuedTokenType } from '../events/events.js';
import { noStoreJson } from '../http/responses.js';
import type { GatehouseResponse } from '../http/types.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import type { Client, Realm } from '../realms/realm.js';
import { REVOKED_GRANT_SECONDS } from '../store/store.js';
import { accessTokenType, issueAccessToken } from '../tokens/access-token.js';
import { issueIdToken } from '../tokens/id-token.js';
import { idTokenHasUserClaims, idTokenUserClaims } from '../tokens/id-token-claims.js';
import { issueRefreshToken } from '../tokens/refresh-token.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';

export interface UserTokenIssue {
  /** The token endpoint's grant_type, for the token_issued event. */
  grantType: string;
  /** The grant every token belongs to; a refresh token carries it unchanged. */
  grant: TokenFamily;
  /** The user's account, read by the grant to check it still exists. */
  account: Account;
  /** The access token's scopes: the grant's, or fewer when a refresh request narrowed them. */
  scopes: readonly string[];
  /** The access token's Protected Resource (see userTokenResource). */
  resource: ResourceConfig | undefined;
  /** Returned in the ID token: the authorization request's nonce, never on refresh. */
  nonce?: string;
  /** Absolute expiry of the refresh token, carried over on rotation. */
  refreshTokenExp?: number;
  /** The refresh token to issue, a rotated token's successor; a new random one by default. */
  refreshToken?: string;
  /** The request's refresh token stays the client's, and no new one is issued (no rotation). */
  keepsRefreshToken?: boolean;
  /**
   * When (milliseconds) this request consumed its one-time record (a code, a refresh token). A
   * concurrent replay may revoke the grant after that and before the tokens are written; the
   * store then keeps none of them, as it keeps a revoked grant closed for
   * `REVOKED_GRANT_SECONDS`. A request slower than half of that writes nothing.
   */
  consumedAtMs?: number;
  /** The request's DPoP key: the access token is bound to it, a public client's refresh token too. */
  dpopJkt?: string;
}

/**
 * The token response of docs/interface.md §2.4 for a user's grant (authorization code, refresh,
 * CIBA): an access token recorded under the grant id, a refresh token when the client may use the
 * refresh_token grant, and an ID token (with `at_hash`) when the scopes include openid.
 */
export async function userTokenResponse(
  context: RealmContext,
  client: Client,
  issue: UserTokenIssue,
): Promise<GatehouseResponse> {
  const { grant, scopes, resource } = issue;
  if (
    issue.consumedAtMs !== undefined &&
    context.now() - issue.consumedAtMs > (REVOKED_GRANT_SECONDS * 1000) / 2
  ) {
    throw new OAuthError('temporarily_unavailable', 'the token request took too long');
  }
  // Both records in flight at once: one round trip to a pipelining store instead of two. When a
  // concurrent replay revoked the grant, the store keeps neither, and the answer still goes out:
  // of concurrent redemptions exactly one succeeds, as if the replay had come a moment later.
  const [access, refreshToken] = await Promise.all([
    issueAccessToken(context, {
      sub: grant.sub,
      clientId: grant.clientId,
      scopes,
      grantId: grant.grantId,
      ...(resource ? { resource: resource.uri } : {}),
      ...(grant.claims ? { userinfoClaims: grant.claims.userinfo } : {}),
      ...(issue.dpopJkt === undefined ? {} : { dpopJkt: issue.dpopJkt }),
    }),
    client.grantTypes.has('refresh_token') && !issue.keepsRefreshToken
      ? issueRefreshToken(
          context,
          grant,
          issue.refreshTokenExp,
          issue.refreshToken,
          refreshTokenKey(client, issue.dpopJkt),
        )
      : undefined,
  ]);
  const body: Record<string, unknown> = {
    access_token: access.token,
    token_type: accessTokenType(access.record),
    expires_in: access.expiresIn,
  };
  if (access.record.scope !== '') body.scope = access.record.scope;
  if (refreshToken !== undefined) body.refresh_token = refreshToken;
  if (scopes.includes('openid')) {
    body.id_token = await issueIdToken(context, {
      grant,
      accessToken: access.token,
      ...(issue.nonce === undefined ? {} : { nonce: issue.nonce }),
      ...(idTokenHasUserClaims(grant, client, true)
        ? { claims: idTokenUserClaims(issue.account.claims, grant, client, scopes, true) }
        : {}),
    });
  }
  const tokens = Object.keys(body).filter(isIssuedTokenType);
  emitEvent(context, {
    type: 'token_issued',
    grantType: issue.grantType,
    clientId: client.id,
    sub: grant.sub,
    ...(grant.sid === undefined ? {} : { sid: grant.sid }),
    grantId: grant.grantId,
    jti: access.record.jti,
    scopes: [...scopes],
    tokens,
  });
  return noStoreJson(200, body);
}

const ISSUED_TOKEN_TYPES: ReadonlySet<string> = new Set<IssuedTokenType>([
  'access_token',
  'refresh_token',
  'id_token',
]);
const isIssuedTokenType = (name: string): name is IssuedTokenType => ISSUED_TOKEN_TYPES.has(name);

/**
 * The Protected Resource of a token issued from a user's grant (RFC 8707). A grant authorized for
 * a resource is bound to it: the request may omit `resource` or repeat it, anything else is
 * invalid_target. A grant without one lets each token request pick any declared resource. Either
 * way `scopes` must cover the resource (invalid_scope), so a narrowed refresh stays meaningful.
 */
export function userTokenResource(
  requested: string | undefined,
  grant: TokenFamily,
  realm: Realm,
  scopes: readonly string[],
): ResourceConfig | undefined {
  if (grant.resource !== undefined && requested !== undefined && requested !== grant.resource) {
    throw new OAuthError('invalid_target', 'resource differs from the one authorized');
  }
  const resource = requestedResource(requested ?? grant.resource, realm);
  checkScopesCoverResource(scopes, resource);
  return resource;
}
