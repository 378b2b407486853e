import { invalidGrant, invalidRequest, invalidScope } from '../errors/oauth-error.js';
import type { Client } from '../realms/realm.js';
import {
  consumeRefreshToken,
  findRefreshToken,
  type RefreshTokenRecord,
  refreshTokenHeld,
} from '../tokens/refresh-token.js';
import type { GrantHandler } from './grant.js';
import { revokeReplayedGrant } from './replay.js';
import { requestedScopes } from './scope.js';
import { userTokenResource, userTokenResponse } from './user-token-response.js';

/**
 * RFC 6749 §6 and interface §4.3. The request is checked before the token is used, so a
 * malformed request does not spend it. Then the token is rotated: a token presented after it was
 * already rotated means two parties hold it, and the whole grant is revoked — the newest token
 * of the legitimate holder too (RFC 9700 §4.14.2). The new token keeps the grant's scopes and its
 * absolute expiry; the access token may be narrowed to fewer scopes and another resource.
 */
export const refreshTokenGrant: GrantHandler = async (params, client, context) => {
  const token = params.get('refresh_token');
  if (token === undefined) throw invalidRequest('refresh_token is required');

  const found = await findRefreshToken(context, token);
  // One description for unknown and foreign tokens: the answer does not confirm a token exists.
  const unusable = () =>
    invalidGrant('the refresh token is invalid, expired or issued to another client');
  if (!found || found.clientId !== client.id) throw unusable();
  const grant = userGrantOf(found);
  const scopes = refreshScopes(params.get('scope'), client, grant.scopes);
  const resource = userTokenResource(params.get('resource'), grant, context.realm, scopes);
  const account = await context.accounts.findAccount(context.realm.name, grant.sub);
  if (!account) throw invalidGrant('the account of this grant no longer exists');

  const consumed = await consumeRefreshToken(context, token);
  if (!consumed) throw unusable();
  if (!consumed.firstUse) {
    await revokeReplayedGrant(context, grant.grantId);
    throw invalidGrant('the refresh token was already used; its grant is revoked');
  }
  return userTokenResponse(context, client, {
    grant,
    scopes,
    resource,
    refreshTokenExp: found.exp,
    consumedRecordHeld: () => refreshTokenHeld(context, token),
  });
};

function userGrantOf(record: RefreshTokenRecord) {
  const { iat, exp, ...grant } = record;
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
  const notGranted = requested.find((each) => !granted.includes(each));
  if (notGranted !== undefined) throw invalidScope(`scope "${notGranted}" was not granted`);
  return requested;
}
