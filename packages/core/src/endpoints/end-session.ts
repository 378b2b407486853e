import type { EndpointHandler, RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { invalidRequest, OAuthError } from '../errors/oauth-error.js';
import { readCookies } from '../http/cookies.js';
import { type Params, parseUrlEncoded } from '../http/form.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import { readForm } from '../http/read-form.js';
import type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import type { Client } from '../realms/realm.js';
import {
  endSession,
  type LoadedSession,
  loadSession,
  sessionCookieName,
} from '../sessions/session.js';
import { ID_TOKEN_JWT_TYPE } from '../tokens/id-token.js';
import { ENDPOINT_PATHS } from './paths.js';

export const LOGOUT_CONFIRMATION_NAMESPACE = 'logout_confirmation';
/** Seconds the user has to press the button of the confirmation page. */
export const LOGOUT_CONFIRMATION_TTL = 600;
/** The confirmation page's form field; a logout request from a relying party never has it. */
export const CONFIRMATION_FIELD = 'confirmation';

/** A logout request whose parameters passed every check. */
interface LogoutRequest {
  /** The `sub` of a valid id_token_hint. */
  hintSub?: string;
  client?: Client;
  /** One of the client's registered post_logout_redirect_uris. */
  redirectUri?: string;
  state?: string;
}

/** What the confirmation page's one-time token stands for, bound to the session it was shown to. */
interface ConfirmationRecord {
  sessionId: string;
  clientId?: string;
  redirectUri?: string;
  state?: string;
}

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). A valid id_token_hint of the
 * signed-in user ends the session at once; anything less, while a session exists, gets a
 * confirmation page whose form carries a one-time token bound to that session, so a forged
 * cross-site request cannot sign the user out. The browser goes back to a registered
 * post_logout_redirect_uri only; every error is a page at the provider, never a redirect.
 */
export const endSessionEndpoint: EndpointHandler = async (request, context) => {
  try {
    return await logout(request, context);
  } catch (error) {
    // Errors operators must hear about keep their usual path to onError.
    if (!(error instanceof OAuthError) || error.reportCause) throw error;
    const message = error.description ?? 'The sign-out request is invalid.';
    return htmlPage(
      error.status,
      'Sign-out failed',
      `<h1>Sign-out failed</h1><p>${escapeHtml(message)}</p>`,
    );
  }
};

async function logout(
  request: GatehouseRequest,
  context: RealmContext,
): Promise<GatehouseResponse> {
  const post = request.method === 'POST';
  const params = post ? readForm(request, context.maxBodyBytes) : parseUrlEncoded(request.query);
  const confirmation = post ? params.get(CONFIRMATION_FIELD) : undefined;
  if (confirmation !== undefined) return confirmed(request, context, confirmation);

  const logoutRequest = await validateRequest(params, context);
  const presented = sessionCookiePresented(request, context);
  // A relying party's cross-site POST carries no SameSite=Lax session cookie; the same request
  // as a top-level GET does, so the session can be seen (and not merely its cookies cleared).
  if (post && !presented) return redirect(303, asGetRequest(params, context), []);

  const session = await loadSession(request, context);
  if (session && logoutRequest.hintSub !== session.record.sub) {
    return confirmationPage(context, session, logoutRequest);
  }
  return signedOut(context, logoutRequest, session, presented, post ? 303 : 302);
}

async function validateRequest(params: Params, context: RealmContext): Promise<LogoutRequest> {
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
    if (!isRegistered(client, redirectUri)) {
      throw invalidRequest('The post_logout_redirect_uri is not registered for this client.');
    }
    logoutRequest.redirectUri = redirectUri;
  }
  const state = params.get('state');
  if (state !== undefined) logoutRequest.state = state;
  return logoutRequest;
}

const isRegistered = (client: Client, uri: string) =>
  client.config.post_logout_redirect_uris.includes(uri);

async function confirmationPage(
  context: RealmContext,
  session: LoadedSession,
  logoutRequest: LogoutRequest,
): Promise<GatehouseResponse> {
  const { client, redirectUri, state } = logoutRequest;
  const token = randomId(32);
  const record: ConfirmationRecord = {
    sessionId: session.id,
    ...(client ? { clientId: client.id } : {}),
    ...(redirectUri === undefined ? {} : { redirectUri }),
    ...(state === undefined ? {} : { state }),
  };
  await context.store.set(LOGOUT_CONFIRMATION_NAMESPACE, confirmationId(context, token), record, {
    ttlSeconds: LOGOUT_CONFIRMATION_TTL,
  });
  const asker = client
    ? `<p>${escapeHtml(client.config.client_name ?? client.id)} asks to sign you out.</p>`
    : '';
  const action = escapeHtml(context.realm.url(ENDPOINT_PATHS.endSession));
  return htmlPage(
    200,
    'Sign out',
    `<h1>Sign out?</h1>${asker}<p>Do you want to sign out of ${escapeHtml(context.realm.issuer)}?</p>` +
      `<form method="post" action="${action}"><input type="hidden" name="${CONFIRMATION_FIELD}" value="${escapeHtml(token)}"><button type="submit">Sign out</button></form>`,
  );
}

/** The confirmation form came back: its token is used up, and valid only for its own session. */
async function confirmed(
  request: GatehouseRequest,
  context: RealmContext,
  token: string,
): Promise<GatehouseResponse> {
  const consumed = await context.store.consume<ConfirmationRecord>(
    LOGOUT_CONFIRMATION_NAMESPACE,
    confirmationId(context, token),
  );
  if (!consumed?.firstUse) {
    throw invalidRequest('This sign-out request has expired or was already used.');
  }
  const record = consumed.value;
  const session = await loadSession(request, context);
  if (!session || session.id !== record.sessionId) {
    throw invalidRequest('This sign-out request was made for another session.');
  }
  const client =
    record.clientId === undefined ? undefined : context.realm.clients.get(record.clientId);
  const logoutRequest: LogoutRequest = {};
  // The client's registration may have changed since the page was shown.
  if (record.redirectUri !== undefined) {
    if (!client || !isRegistered(client, record.redirectUri)) {
      throw invalidRequest('The post_logout_redirect_uri is no longer registered for this client.');
    }
    logoutRequest.redirectUri = record.redirectUri;
  }
  if (record.state !== undefined) logoutRequest.state = record.state;
  return signedOut(context, logoutRequest, session, true, 303);
}

/**
 * Ends the session and clears its cookies, but only those the browser presented: a request that
 * arrived without the session cookie (a cross-site subresource, say) must not delete it.
 */
async function signedOut(
  context: RealmContext,
  logoutRequest: LogoutRequest,
  session: LoadedSession | undefined,
  presented: boolean,
  redirectStatus: 302 | 303,
): Promise<GatehouseResponse> {
  const cookies = session || presented ? await endSession(context, session) : [];
  if (logoutRequest.redirectUri !== undefined) {
    return redirect(
      redirectStatus,
      withState(logoutRequest.redirectUri, logoutRequest.state),
      cookies,
    );
  }
  const page = htmlPage(200, 'Signed out', '<h1>Signed out</h1><p>You are signed out.</p>');
  return cookies.length === 0 ? page : { ...page, cookies };
}

function redirect(status: 302 | 303, location: string, cookies: string[]): GatehouseResponse {
  return {
    status,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    ...(cookies.length === 0 ? {} : { cookies }),
  };
}

/** The registered URI as it is, with `state` added to its query (RP-Initiated Logout §3). */
export function withState(uri: string, state: string | undefined): string {
  if (state === undefined) return uri;
  const separator = !uri.includes('?') ? '?' : /[?&]$/.test(uri) ? '' : '&';
  return `${uri}${separator}state=${encodeURIComponent(state)}`;
}

/** The logout parameters as a GET request of the same endpoint. */
function asGetRequest(params: Params, context: RealmContext): string {
  const query = new URLSearchParams();
  for (const name of [
    'id_token_hint',
    'post_logout_redirect_uri',
    'state',
    'client_id',
    'ui_locales',
  ]) {
    const value = params.get(name);
    if (value !== undefined) query.append(name, value);
  }
  const url = context.realm.url(ENDPOINT_PATHS.endSession);
  return query.size === 0 ? url : `${url}?${query}`;
}

function sessionCookiePresented(request: GatehouseRequest, context: RealmContext): boolean {
  return (readCookies(request.headers.cookie).get(sessionCookieName(context.realm)) ?? '') !== '';
}

const confirmationId = (context: RealmContext, token: string) =>
  `${context.realm.name}/${tokenDigest(token)}`;
