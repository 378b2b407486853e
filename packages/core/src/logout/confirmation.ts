import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
import { type LoadedSession, loadSession } from '../sessions/session.js';
import { isRegisteredLogoutUri, type LogoutRequest } from './logout-request.js';
import { confirmationPage as page } from './pages.js';

const LOGOUT_CONFIRMATION_NAMESPACE = 'logout_confirmation';
/** Seconds the user has to press the button of the confirmation page. */
const LOGOUT_CONFIRMATION_TTL = 300;
/** Confirmations one session keeps waiting at once; the oldest goes first. */
export const LOGOUT_CONFIRMATIONS_PER_SESSION = 5;

/** What the confirmation page's one-time token stands for, bound to the session it was shown to. */
interface ConfirmationRecord {
  sessionId: string;
  clientId?: string;
  redirectUri?: string;
  state?: string;
  uiLocales?: string[];
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
  const { client, redirectUri, state, uiLocales } = logoutRequest;
  const token = randomId(32);
  const record: ConfirmationRecord = {
    sessionId: session.id,
    ...(client ? { clientId: client.id } : {}),
    ...(redirectUri === undefined ? {} : { redirectUri }),
    ...(state === undefined ? {} : { state }),
    ...(uiLocales.length === 0 ? {} : { uiLocales }),
  };
  const realm = context.realm.name;
  // Each GET of the logout endpoint shows a new page: caps keep reloads and floods bounded.
  await context.store.setCapped(
    LOGOUT_CONFIRMATION_NAMESPACE,
    confirmationId(context, token),
    record,
    {
      ttlSeconds: LOGOUT_CONFIRMATION_TTL,
      caps: [
        { key: `logout/${realm}`, max: context.limits.logoutConfirmationsPerRealm },
        { key: `logout/${realm}/session/${session.id}`, max: LOGOUT_CONFIRMATIONS_PER_SESSION },
      ],
    },
  );
  return page(context, context.logoutMessages(uiLocales), client, token);
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
    throw new OAuthError(
      'invalid_request',
      'This sign-out request has expired or was already used.',
    );
  }
  const record = consumed.value;
  const session = await loadSession(request, context);
  if (!session || session.id !== record.sessionId) {
    throw new OAuthError('invalid_request', 'This sign-out request was made for another session.');
  }
  const client =
    record.clientId === undefined ? undefined : context.realm.clients.get(record.clientId);
  const logoutRequest: LogoutRequest = {
    uiLocales: record.uiLocales ?? [],
    ...(client ? { client } : {}),
  };
  // The client's registration may have changed since the page was shown.
  if (record.redirectUri !== undefined) {
    if (!client || !isRegisteredLogoutUri(client, record.redirectUri)) {
      throw new OAuthError(
        'invalid_request',
        'The post_logout_redirect_uri is no longer registered for this client.',
      );
    }
    logoutRequest.redirectUri = record.redirectUri;
  }
  if (record.state !== undefined) logoutRequest.state = record.state;
  return { session, logoutRequest };
}

const confirmationId = (context: RealmContext, token: string) =>
  `${context.realm.name}/${tokenDigest(token)}`;
