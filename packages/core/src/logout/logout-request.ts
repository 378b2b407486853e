import type { RealmContext } from '../context.js';
import { invalidRequest } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import type { Client } from '../realms/realm.js';
import { ID_TOKEN_JWT_TYPE } from '../tokens/id-token.js';

/** A logout request whose parameters passed every check. */
export interface LogoutRequest {
  /** The `sub` of a valid id_token_hint. */
  hintSub?: string;
  client?: Client;
  /** One of the client's registered post_logout_redirect_uris. */
  redirectUri?: string;
  state?: string;
}

/**
 * RP-Initiated Logout §2: the hint must be an ID token of this realm (expired or not), client_id
 * must agree with it, and a post_logout_redirect_uri must be registered for that client.
 */
export async function validateLogoutRequest(
  params: Params,
  context: RealmContext,
): Promise<LogoutRequest> {
  const { realm } = context;
  const logoutRequest: LogoutRequest = {};
  const hint = params.get('id_token_hint');
  let hintClientId: string | undefined;
  if (hint !== undefined) {
    const claims = await verifyRealmJwt(context, hint, {
      typ: ID_TOKEN_JWT_TYPE,
      allowExpired: true,
    });
    if (!claims || typeof claims.sub !== 'string' || typeof claims.aud !== 'string') {
      throw invalidRequest('The id_token_hint is not a valid ID token of this provider.');
    }
    logoutRequest.hintSub = claims.sub;
    hintClientId = claims.aud;
  }

  const clientId = params.get('client_id');
  if (clientId !== undefined && hintClientId !== undefined && clientId !== hintClientId) {
    throw invalidRequest('The client_id does not match the id_token_hint.');
  }
  if (clientId !== undefined && !realm.clients.has(clientId)) {
    throw invalidRequest('The client_id is not a client of this provider.');
  }
  const client = realm.clients.get(clientId ?? hintClientId ?? '');
  if (client) logoutRequest.client = client;

  const redirectUri = params.get('post_logout_redirect_uri');
  if (redirectUri !== undefined) {
    if (!client) {
      throw invalidRequest(
        'A post_logout_redirect_uri needs an id_token_hint or a client_id naming its client.',
      );
    }
    if (!isRegisteredLogoutUri(client, redirectUri)) {
      throw invalidRequest('The post_logout_redirect_uri is not registered for this client.');
    }
    logoutRequest.redirectUri = redirectUri;
  }
  const state = params.get('state');
  if (state !== undefined) logoutRequest.state = state;
  return logoutRequest;
}

export const isRegisteredLogoutUri = (client: Client, uri: string) =>
  client.config.post_logout_redirect_uris.includes(uri);
