import { isFapi2 } from '../config/fapi2.js';
import { checkBoundKey } from '../dpop/key-binding.js';
import { OAuthError } from '../errors/oauth-error.js';
import { clientRevokedBefore, revokedWithClient } from '../lifecycle/client-revocation.js';
import { revokeReplayedFamily } from '../lifecycle/replay.js';
import { extended } from '../objects/extended.js';
import type { Client } from '../realms/realm.js';
import {
  consumeRefreshToken,
  findRefreshToken,
  type RefreshTokenRecord,
  refreshTokenId,
  rotationNote,
  successorToken,
  withinRotationGrace,
} from '../tokens/refresh-token.js';
import type { GrantTypeHandler } from './grant-type.js';
import { requestedScopes } from './scope.js';
import { userTokenResource, userTokenResponse } from './user-token-response.js';

/**
 * RFC 6749 §6 and docs/interface.md §4.3. The request is checked before the token is used, so a
 * malformed request does not spend it. Then the token is rotated: a token presented after it was
 * already rotated means two parties hold it, and the whole grant is revoked — the newest token
 * of the legitimate holder too (RFC 9700 §4.14.2). The new token keeps the grant's scopes and its
 * absolute expiry; the access token may be narrowed to fewer scopes and another resource.
 *
 * Within the realm's `refresh_token_rotation_grace` after the first use, the token's own client
 * presenting it again (a retry after a lost answer, a second tab refreshing at the same moment)
 * is not reuse: it gets the same successor the first use got, with access and ID tokens of its
 * own. Another client's presentation is refused before anything is consumed, as always.
 *
 * A `fapi2` realm does not rotate: the refresh token keeps working until the grant expires or
 * ends, and each refresh answers without a new one (FAPI 2.0 SP §5.3.2.1-9).
 */
export const refreshTokenGrant: GrantTypeHandler = async (params, client, context, dpopJkt) => {
  const token = params.get('refresh_token');
  if (token === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');

  const tokenId = refreshTokenId(context, token);
  const [found, clientRevocation] = await Promise.all([
    findRefreshToken(context, tokenId),
    clientRevokedBefore(context, client.id),
  ]);
  // One description for unknown and foreign tokens: the answer does not confirm a token exists.
  const unusable = () =>
    new OAuthError(
      'invalid_grant',
      'the refresh token is invalid, expired or issued to another client',
    );
  if (!found || found.clientId !== client.id || revokedWithClient(clientRevocation, found))
    throw unusable();
  checkBoundKey(found.jkt, dpopJkt, 'refresh token');
  const grant = userGrantOf(found);
  const scopes = refreshScopes(params.get('scope'), client, grant.scopes);
  const resource = userTokenResource(params.get('resource'), grant, context.realm, scopes);
  const account = await context.accounts.findAccount(context.realm.name, grant.sub);
  if (!account) throw new OAuthError('invalid_grant', 'the account of this grant no longer exists');

  const issue = { grantType: 'refresh_token', grant, account, scopes, resource } as const;
  const bound = dpopJkt === undefined ? {} : { dpopJkt };
  // FAPI 2.0 SP §5.3.2.1-9: no rotation; the token is as sender-constrained as its client is.
  if (isFapi2(context.realm.config)) {
    return userTokenResponse(
      context,
      client,
      extended(issue, { keepsRefreshToken: true, ...bound }),
    );
  }
  const consumed = await consumeRefreshToken(context, tokenId, rotationNote(context));
  const consumedAtMs = context.now();
  if (!consumed) throw unusable();
  const { note } = consumed;
  if (!consumed.firstUse && !withinRotationGrace(context, note)) {
    await revokeReplayedFamily(context, grant, 'refresh_token');
    throw new OAuthError(
      'invalid_grant',
      'the refresh token was already used; its grant is revoked',
    );
  }
  return userTokenResponse(
    context,
    client,
    extended(issue, {
      refreshTokenExp: found.exp,
      ...(note && { refreshToken: successorToken(token, note) }),
      consumedAtMs,
      ...bound,
    }),
  );
};

function userGrantOf(record: RefreshTokenRecord) {
  const { iat, iatMs, exp, jkt, ...grant } = record;
  return grant;
}

/**
 * RFC 6749 §6: a narrower scope may be asked for, never a wider one. Without `scope`, the grant's
 * scopes that the client is still assigned: a scope the administrator has since taken away from
 * the client is not issued again.
 */
function refreshScopes(scope: string | undefined, client: Client, granted: readonly string[]) {
  if (scope === undefined) return granted.filter((each) => client.scopes.has(each));
  const requested = requestedScopes(scope, client, granted);
  if (!requested.every((each) => granted.includes(each)))
    throw new OAuthError('invalid_scope', 'scope asks for more than the grant holds');
  return requested;
}
