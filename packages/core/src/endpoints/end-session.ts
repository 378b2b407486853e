import type { EndpointHandler, RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { emitEvent } from '../events/emit.js';
import { readCookies } from '../http/cookies.js';
import { type Params, parseUrlEncoded } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import { appendQuery, redirect } from '../http/redirect.js';
import type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
import { confirmationPage, takeConfirmation } from '../logout/confirmation.js';
import { frontchannelLogoutUris } from '../logout/frontchannel.js';
import { logOutSession } from '../logout/log-out.js';
import { type LogoutRequest, validateLogoutRequest } from '../logout/logout-request.js';
import { readUiLocales } from '../logout/messages.js';
import { CONFIRMATION_FIELD, failedPage, signedOutPage } from '../logout/pages.js';
import {
  clearedSessionCookies,
  type LoadedSession,
  loadSession,
  sessionCookieName,
} from '../sessions/session.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). A valid id_token_hint of the
 * signed-in user ends the session at once; anything less, while a session exists, gets a
 * confirmation page whose form carries a one-time token bound to that session, so a forged
 * cross-site request cannot sign the user out. The browser goes back to a registered
 * post_logout_redirect_uri only; every error is a page at the provider, never a redirect. The
 * session's clients are told: by back-channel logout, and by the front-channel logout frames of
 * the signed-out page, which then continues to the post_logout_redirect_uri.
 */
export const endSessionEndpoint: EndpointHandler = async (request, context) => {
  let uiLocales: string[] = [];
  try {
    const post = request.method === 'POST';
    const params = post ? readForm(request, context.maxBodyBytes) : parseUrlEncoded(request.query);
    uiLocales = readUiLocales(params.get('ui_locales'));
    return await logout(request, context, params);
  } catch (error) {
    // Errors operators must hear about keep their usual path to onError.
    if (!(error instanceof OAuthError) || error.reportCause) throw error;
    const reason = error.description ?? 'The sign-out request is invalid.';
    const page = failedPage(context.logoutMessages(uiLocales), error.status, reason);
    return { ...page, errorCode: error.code };
  }
};

async function logout(
  request: GatehouseRequest,
  context: RealmContext,
  params: Params,
): Promise<GatehouseResponse> {
  const post = request.method === 'POST';
  const confirmation = post ? params.get(CONFIRMATION_FIELD) : undefined;
  if (confirmation !== undefined) {
    const confirmed = await takeConfirmation(request, context, confirmation);
    return signedOut(context, confirmed.logoutRequest, confirmed.session, true, 'POST');
  }

  const logoutRequest = await validateLogoutRequest(params, context);
  const presented = sessionCookiePresented(request, context);
  // A relying party's cross-site POST carries no SameSite=Lax session cookie; the same request
  // as a top-level GET does, so the session can be seen (and not merely its cookies cleared).
  if (post && !presented) return redirect(asGetRequest(params, context), request.method);

  const session = await loadSession(request, context, { ending: true });
  // A session whose ending failed half-way was confirmed already: finish it.
  if (session && !session.record.ended && logoutRequest.hintSub !== session.record.sub) {
    return confirmationPage(context, session, logoutRequest);
  }
  return signedOut(context, logoutRequest, session, presented, request.method);
}

/**
 * Ends the session and clears its cookies, but only those the browser presented: a request that
 * arrived without the session cookie (a cross-site subresource, say) must not delete it. Goes
 * straight back to the post_logout_redirect_uri unless a client has front-channel frames to load.
 */
async function signedOut(
  context: RealmContext,
  logoutRequest: LogoutRequest,
  session: LoadedSession | undefined,
  presented: boolean,
  method: string,
): Promise<GatehouseResponse> {
  const ended = session && (await logOutSession(context, session.id, 'logout'));
  if (ended) {
    const clientId = logoutRequest.client?.id;
    emitEvent(context, {
      type: 'logout',
      sub: ended.sub,
      sid: ended.sid,
      ...(clientId === undefined ? {} : { clientId }),
    });
  }
  const frames = ended ? frontchannelLogoutUris(context, ended) : [];
  const cookies = session || presented ? clearedSessionCookies(context) : [];
  const { redirectUri, state, uiLocales } = logoutRequest;
  const continueTo = redirectUri === undefined ? undefined : withState(redirectUri, state);
  if (continueTo !== undefined && frames.length === 0) return redirect(continueTo, method, cookies);
  const page = signedOutPage(context.logoutMessages(uiLocales), frames, continueTo);
  return cookies.length === 0 ? page : { ...page, cookies };
}

/** The registered URI as it is, with `state` added to its query (RP-Initiated Logout 1.0 §3). */
export function withState(uri: string, state: string | undefined): string {
  return appendQuery(uri, state === undefined ? '' : `state=${encodeURIComponent(state)}`);
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
