import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { invalidRequest } from '../errors/oauth-error.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
import { type LoadedSession, loadSession } from '../sessions/session.js';
import { isRegisteredLogoutUri, type LogoutRequest } from './logout-request.js';

const LOGOUT_CONFIRMATION_NAMESPACE = 'logout_confirmation';
/** Seconds the user has to press the button of the confirmation page. */
const LOGOUT_CONFIRMATION_TTL = 600;
/** The confirmation page's form field; a logout request from a relying party never has it. */
export const CONFIRMATION_FIELD = 'confirmation';

/** What the confirmation page's one-time token stands for, bound to the session it was shown to. */
interface ConfirmationRecord {
  sessionId: string;
  clientId?: string;
  redirectUri?: string;
  state?: string;
}

/**
 * Asks the signed-in user to confirm a logout nobody proved they asked for: the form carries a
 * one-time token bound to this session, so a forged cross-site request cannot sign them out.
 */
export async function confirmationPage(
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

/**
 * The confirmation form came back: its token is used up, and valid only for its own session.
 * Returns that session and the logout it confirms.
 */
export async function takeConfirmation(
  request: GatehouseRequest,
  context: RealmContext,
  token: string,
): Promise<{ session: LoadedSession; logoutRequest: LogoutRequest }> {
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
    if (!client || !isRegisteredLogoutUri(client, record.redirectUri)) {
      throw invalidRequest('The post_logout_redirect_uri is no longer registered for this client.');
    }
    logoutRequest.redirectUri = record.redirectUri;
  }
  if (record.state !== undefined) logoutRequest.state = record.state;
  return { session, logoutRequest };
}

const confirmationId = (context: RealmContext, token: string) =>
  `${context.realm.name}/${tokenDigest(token)}`;
