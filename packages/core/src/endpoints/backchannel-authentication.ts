import { type Found, need, runChecks } from '../authorization/checks/check.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import type { CibaNotification } from '../ciba/authenticator-push.js';
import { createCibaRequest } from '../ciba/ciba-request.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import { type EndpointHandler, nowSeconds, type RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import type { Client } from '../realms/realm.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Backchannel authentication endpoint (CIBA Core 1.0 §7, docs/interface.md §4.6), poll or ping
 * mode: client authentication, then the ciba row of the checks table (authorization/checks). The
 * user is the one an ID token this realm issued to the client names (`id_token_hint`, which may
 * have expired); the request is stored pending and the user's authenticator is notified without the
 * client waiting for it.
 */
export const backchannelAuthenticationEndpoint: EndpointHandler = async (request, context) => {
  const ciba = context.realm.config.ciba;
  const push = context.authenticatorPush;
  if (!ciba || !push) throw new OAuthError('not_found', 'no such endpoint');
  const params = readForm(request, context.maxBodyBytes);
  const client = await authenticateClient(
    request,
    params,
    context,
    ENDPOINT_PATHS.backchannelAuthentication,
  );
  const found: Found = {};
  await runChecks(AUTHORIZATION_CHECKS.ciba, { params, context, client, found });
  const sub = need(found, 'hintedSub');
  const scopes = need(found, 'scopes');
  const expiresIn = need(found, 'expiresIn');
  const { bindingMessage, clientNotificationToken } = found;
  const endpoint = client.config.backchannel_client_notification_endpoint;

  const now = nowSeconds(context);
  const record = {
    realm: context.realm.name,
    clientId: client.id,
    sub,
    scopes,
    ...(bindingMessage === undefined ? {} : { bindingMessage }),
    state: 'pending' as const,
    expiresAt: now + expiresIn,
    interval: ciba.interval,
    lastPollAtMs: context.now(),
    ...(clientNotificationToken === undefined || endpoint === undefined
      ? {}
      : { ping: { endpoint, clientNotificationToken } }),
  };
  if (push.accepts?.(context.realm.name) === false) {
    throw new OAuthError('temporarily_unavailable', 'the authenticator is busy; try again later', {
      headers: { 'retry-after': String(ciba.interval) },
    });
  }
  const authReqId = await createCibaRequest(context, record);
  // Not awaited: delivery is the adapter's to retry, and its failures are not the client's —
  // not even an adapter that throws instead of rejecting.
  Promise.resolve()
    .then(() => push.notify(notificationOf(context, client, authReqId, record)))
    .catch(context.reportError);
  return noStoreJson(200, {
    auth_req_id: authReqId,
    expires_in: expiresIn,
    interval: ciba.interval,
  });
};

function notificationOf(
  context: RealmContext,
  client: Client,
  authReqId: string,
  record: { sub: string; scopes: string[]; bindingMessage?: string; expiresAt: number },
): CibaNotification {
  return {
    realm: context.realm.name,
    authReqId,
    sub: record.sub,
    clientId: client.id,
    ...(client.config.client_name === undefined ? {} : { clientName: client.config.client_name }),
    scopes: record.scopes,
    ...(record.bindingMessage === undefined ? {} : { bindingMessage: record.bindingMessage }),
    expiresAt: record.expiresAt,
  };
}
