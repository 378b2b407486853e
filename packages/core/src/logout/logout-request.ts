import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import type { Client } from '../realms/realm.js';
import { verifyIdTokenHint } from '../tokens/id-token-hint.js';
import { readUiLocales } from './messages.js';

/** Kept with a logout confirmation until the user answers: bounded like an authorization's. */
const MAX_STATE_LENGTH = 2048;

/** A logout request whose parameters passed every check. */
export interface LogoutRequest {
  /** The `sub` of a valid id_token_hint. */
  hintSub?: string;
  client?: Client;
  /** One of the client's registered post_logout_redirect_uris. */
  redirectUri?: string;
  state?: string;
  /** Its `ui_locales`: the languages the pages are wanted in, the preferred first. */
  uiLocales: string[];
}

/**
 * RP-Initiated Logout 1.0 §2: the hint must be an ID token of this realm (expired or not),
 * client_id must agree with it, and a post_logout_redirect_uri must be registered for that client.
 */
export async function validateLogoutRequest(
  params: Params,
  context: RealmContext,
): Promise<LogoutRequest> {
  const { realm } = context;
  const logoutRequest: LogoutRequest = { uiLocales: readUiLocales(params.get('ui_locales')) };
  const hint = params.get('id_token_hint');
  let hintClientId: string | undefined;
  if (hint !== undefined) {
    const claims = await verifyIdTokenHint(context, hint);
    // Gatehouse's ID tokens have one audience: that client is the one the logout is for.
    if (claims?.audience.length !== 1) {
      throw new OAuthError(
        'invalid_request',
        'The id_token_hint is not a valid ID token of this provider.',
      );
    }
    logoutRequest.hintSub = claims.sub;
    hintClientId = claims.audience[0];
  }

  const clientId = params.get('client_id');
  if (clientId !== undefined && hintClientId !== undefined && clientId !== hintClientId) {
    throw new OAuthError('invalid_request', 'The client_id does not match the id_token_hint.');
  }
  if (clientId !== undefined && !realm.clients.has(clientId)) {
    throw new OAuthError('invalid_request', 'The client_id is not a client of this provider.');
  }
  const client = realm.clients.get(clientId ?? hintClientId ?? '');
  if (client) logoutRequest.client = client;

  const redirectUri = params.get('post_logout_redirect_uri');
  if (redirectUri !== undefined) {
    if (!client) {
      throw new OAuthError(
        'invalid_request',
        'A post_logout_redirect_uri needs an id_token_hint or a client_id naming its client.',
      );
    }
    if (!isRegisteredLogoutUri(client, redirectUri)) {
      throw new OAuthError(
        'invalid_request',
        'The post_logout_redirect_uri is not registered for this client.',
      );
    }
    logoutRequest.redirectUri = redirectUri;
  }
  const state = params.get('state');
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    throw new OAuthError(
      'invalid_request',
      `The state is longer than ${MAX_STATE_LENGTH} characters.`,
    );
  }
  if (state !== undefined) logoutRequest.state = state;
  return logoutRequest;
}

export const isRegisteredLogoutUri = (client: Client, uri: string) =>
  client.config.post_logout_redirect_uris.includes(uri);
