import type { RealmContext } from '../context.js';
import { pendingRequestOfUserCode } from '../device/device-request.js';
import { normalizeUserCode } from '../device/user-code.js';
import type { GatehouseResponse } from '../http/types.js';
import { loadSession } from '../sessions/session.js';
import { continueAuthorization } from './continue-authorization.js';
import type { AuthorizationRequest } from './request.js';

/**
 * The user typed a device's user code in this browser (RFC 8628 §3.3): the device's request
 * becomes an authorization like a client's — a login when the browser has no session, always a
 * consent — whose answer approves or denies the device's request and sends the browser back to
 * the verification page. Undefined when the code names no request the user may still answer
 * (unknown, expired, already answered): the host counts that as a failed guess.
 */
export async function startDeviceVerification(
  context: RealmContext,
  typed: string,
  browser: { cookieHeader: string | undefined; uiLocales?: readonly string[] },
): Promise<GatehouseResponse | undefined> {
  const userCode = normalizeUserCode(typed);
  const pending = userCode && (await pendingRequestOfUserCode(context, userCode));
  if (!userCode || !pending) return undefined;
  const { record, requestId } = pending;
  const authorization: AuthorizationRequest = {
    clientId: record.clientId,
    redirectUri: context.deviceVerificationUrl(context.realm.name),
    responseType: 'code',
    responseMode: 'query',
    scopes: record.scopes,
    prompt: ['consent'],
    ...(record.resource === undefined ? {} : { resource: record.resource }),
    ...(browser.uiLocales?.length ? { uiLocales: [...browser.uiLocales] } : {}),
    device: { requestId, userCode },
  };
  // Always an interaction (a consent at least), so nothing here answers the device yet. The
  // page posted the code: the redirect is a 303.
  return continueAuthorization(context, authorization, {
    session: await loadSession({ headers: { cookie: browser.cookieHeader } }, context),
    loggedInNow: false,
    cookies: [],
    method: 'POST',
    cookieHeader: browser.cookieHeader,
  });
}
