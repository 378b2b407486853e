import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { emitEvent } from '../events/emit.js';
import { noStoreJson } from '../http/responses.js';
import type { GatehouseResponse } from '../http/types.js';
import { extended } from '../objects/extended.js';
import type { Client } from '../realms/realm.js';
import {
  type AccessTokenGrant,
  accessTokenType,
  issueAccessToken,
} from '../tokens/access-token.js';

export interface AccessTokenAnswer extends Omit<AccessTokenGrant, 'clientId'> {
  /** The token endpoint's grant_type, for the token_issued event. */
  grantType: string;
  /** Members of the answer beyond the access token's own (`issued_token_type`). */
  extra?: Record<string, unknown>;
}

/**
 * The answer of a grant that issues an access token alone (client credentials, token exchange,
 * jwt-bearer): no refresh token, no ID token. A token joining a grant that was revoked meanwhile
 * is not kept by the store, and the request is refused rather than answered with a dead token.
 */
export async function accessTokenResponse(
  context: RealmContext,
  client: Client,
  answer: AccessTokenAnswer,
): Promise<GatehouseResponse> {
  const { grantType, extra, ...grant } = answer;
  const issued = await issueAccessToken(context, extended(grant, { clientId: client.id }));
  if (issued.grantClosed) throw new OAuthError('invalid_grant', 'the grant has been revoked');
  const body: Record<string, unknown> = {
    access_token: issued.token,
    ...extra,
    token_type: accessTokenType(issued.record),
    expires_in: issued.expiresIn,
  };
  if (issued.record.scope !== '') body.scope = issued.record.scope;
  emitEvent(context, {
    type: 'token_issued',
    grantType,
    clientId: client.id,
    sub: grant.sub,
    ...(grant.grantId === undefined ? {} : { grantId: grant.grantId }),
    ...(grant.act === undefined ? {} : { actor: grant.act.sub }),
    jti: issued.record.jti,
    scopes: [...grant.scopes],
    tokens: ['access_token'],
  });
  return noStoreJson(200, body);
}
