import { authenticateClient } from '../client-auth/authenticate.js';
import type { EndpointHandler } from '../context.js';
import { emitEvent } from '../events/emit.js';
import { withClientCors } from '../http/cors.js';
import { readForm } from '../http/read-form.js';
import { emptyResponse, NO_STORE_HEADERS } from '../http/responses.js';
import { ACCESS_TOKEN_NAMESPACE } from '../tokens/access-token.js';
import { findAccessToken } from '../tokens/find-access-token.js';
import { findRefreshToken, refreshTokenId } from '../tokens/refresh-token.js';
import { ENDPOINT_PATHS } from './paths.js';
import { requiredToken } from './token-parameter.js';

/**
 * Token revocation (RFC 7009, docs/interface.md §4.9 and §7.4). Errors only for a failed client
 * authentication or a malformed request; otherwise 200, whether or not the token existed or
 * belonged to the caller. Under the `no-store` policy access tokens have no record, so revoking
 * one changes nothing and it stays usable until it expires. A refresh token takes its whole grant
 * with it: every refresh and access token issued from the same authorization (RFC 7009 §2.1).
 * `token_type_hint` is ignored: access tokens are looked for first, then refresh tokens.
 */
export const revocationEndpoint: EndpointHandler = async (request, context) => {
  const params = readForm(request, context.maxBodyBytes);
  const client = await authenticateClient(request, params, context, ENDPOINT_PATHS.revocation);
  const token = requiredToken(params);
  const found = await findAccessToken(context, token);
  if (found) {
    // Under no-store there is no record (no recordId) and so nothing to revoke.
    const { record, recordId } = found;
    if (recordId !== undefined && record.client_id === client.id) {
      await context.store.delete(ACCESS_TOKEN_NAMESPACE, recordId);
      emitEvent(context, {
        type: 'token_revoked',
        tokenType: 'access_token',
        clientId: client.id,
        sub: record.sub,
        ...(record.grant_id === undefined ? {} : { grantId: record.grant_id }),
        jti: record.jti,
      });
    }
  } else {
    const refresh = await findRefreshToken(context, refreshTokenId(context, token));
    if (refresh?.clientId === client.id) {
      await context.store.revokeGrant(refresh.grantId);
      emitEvent(context, {
        type: 'token_revoked',
        tokenType: 'refresh_token',
        clientId: client.id,
        sub: refresh.sub,
        grantId: refresh.grantId,
      });
    }
  }
  return withClientCors(emptyResponse(200, { ...NO_STORE_HEADERS }), request, client);
};
