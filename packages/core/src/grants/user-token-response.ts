import type { ResourceConfig } from '../config/resource.js';
import type { RealmContext } from '../context.js';
import { invalidTarget } from '../errors/oauth-error.js';
import { noStoreJson } from '../http/responses.js';
import type { GatehouseResponse } from '../http/types.js';
import type { Client, Realm } from '../realms/realm.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { issueIdToken } from '../tokens/id-token.js';
import { issueRefreshToken } from '../tokens/refresh-token.js';
import type { UserGrant } from '../tokens/user-grant.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';

export interface UserTokenIssue {
  /** The grant every token belongs to; a refresh token carries it unchanged. */
  grant: UserGrant;
  /** The access token's scopes: the grant's, or fewer when a refresh request narrowed them. */
  scopes: readonly string[];
  /** The access token's Protected Resource (see userTokenResource). */
  resource: ResourceConfig | undefined;
  /** Returned in the ID token: the authorization request's nonce, never on refresh. */
  nonce?: string;
  /** Absolute expiry of the refresh token, carried over on rotation. */
  refreshTokenExp?: number;
  /**
   * Whether the one-time record this request consumed (a code, a refresh token) is still
   * stored. Asked once the tokens are written: a concurrent replay may have revoked the grant
   * after this request consumed the record and before its tokens existed, and those would then
   * escape the revocation. They are revoked again, but the answer still goes out: of concurrent
   * redemptions exactly one succeeds, as if the replay had come a moment later.
   */
  consumedRecordHeld?: () => Promise<boolean>;
}

/**
 * The token response of interface §2.4 for a user's grant (authorization code, refresh, CIBA):
 * an access token recorded under the grant id, a refresh token when the client may use the
 * refresh_token grant, and an ID token (with `at_hash`) when the scopes include openid.
 */
export async function userTokenResponse(
  context: RealmContext,
  client: Client,
  issue: UserTokenIssue,
): Promise<GatehouseResponse> {
  const { grant, scopes, resource } = issue;
  // Both records in flight at once: one round trip to a pipelining store instead of two.
  const [access, refreshToken] = await Promise.all([
    issueAccessToken(context, {
      sub: grant.sub,
      clientId: grant.clientId,
      scopes,
      grantId: grant.grantId,
      ...(resource ? { resource: resource.uri } : {}),
    }),
    client.grantTypes.has('refresh_token')
      ? issueRefreshToken(context, grant, issue.refreshTokenExp)
      : undefined,
  ]);
  const body: Record<string, unknown> = {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
  };
  if (access.record.scope !== '') body.scope = access.record.scope;
  if (refreshToken !== undefined) body.refresh_token = refreshToken;
  if (scopes.includes('openid')) {
    body.id_token = await issueIdToken(context, {
      grant,
      accessToken: access.token,
      ...(issue.nonce === undefined ? {} : { nonce: issue.nonce }),
    });
  }
  if (issue.consumedRecordHeld && !(await issue.consumedRecordHeld())) {
    await context.store.revokeGrant(grant.grantId);
  }
  return noStoreJson(200, body);
}

/**
 * The Protected Resource of a token issued from a user's grant (RFC 8707). A grant authorized for
 * a resource is bound to it: the request may omit `resource` or repeat it, anything else is
 * invalid_target. A grant without one lets each token request pick any declared resource. Either
 * way `scopes` must cover the resource (invalid_scope), so a narrowed refresh stays meaningful.
 */
export function userTokenResource(
  requested: string | undefined,
  grant: UserGrant,
  realm: Realm,
  scopes: readonly string[],
): ResourceConfig | undefined {
  if (grant.resource !== undefined && requested !== undefined && requested !== grant.resource) {
    throw invalidTarget('resource differs from the one authorized');
  }
  const resource = requestedResource(requested ?? grant.resource, realm);
  checkScopesCoverResource(scopes, resource);
  return resource;
}
