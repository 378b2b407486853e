import type { CibaNotification } from '../ciba/authenticator-push.js';
import { createCibaRequest } from '../ciba/ciba-request.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import { CIBA_GRANT_TYPE } from '../config/client.js';
import { type EndpointHandler, nowSeconds, type RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { requestedScopes } from '../grant-types/scope.js';
import type { Params } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import type { Client } from '../realms/realm.js';
import { verifyIdTokenHint } from '../tokens/id-token-hint.js';
import { ENDPOINT_PATHS } from './paths.js';

const MAX_BINDING_MESSAGE = 128;
/**
 * Shown as is on the user's device: visible text only — no control, format (bidi overrides,
 * zero-width), line or paragraph separators, private-use or unassigned characters — and not
 * blank.
 */
const BINDING_MESSAGE = new RegExp(
  `^(?=.*\\S)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}]{1,${MAX_BINDING_MESSAGE}}$`,
  'u',
);
const SECONDS = /^\d{1,9}$/;

/**
 * Backchannel authentication endpoint (CIBA Core 1.0 §7, docs/interface.md §4.6), poll mode. The
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
  if (!client.grantTypes.has(CIBA_GRANT_TYPE)) {
    throw new OAuthError('unauthorized_client', `this client may not use ${CIBA_GRANT_TYPE}`);
  }
  for (const name of ['login_hint', 'login_hint_token', 'user_code', 'request']) {
    if (params.has(name)) {
      throw new OAuthError(
        'invalid_request',
        `${name} is not supported: the user is identified by id_token_hint`,
      );
    }
  }
  const sub = await hintedUser(params, client, context);
  const scopes = requestedScopes(params.get('scope'), client, [...client.scopes]);
  if (!scopes.includes('openid'))
    throw new OAuthError('invalid_scope', 'a backchannel request needs the openid scope');
  const bindingMessage = params.get('binding_message');
  if (bindingMessage !== undefined && !BINDING_MESSAGE.test(bindingMessage)) {
    throw new OAuthError(
      'invalid_binding_message',
      `binding_message must be 1 to ${MAX_BINDING_MESSAGE} printable characters`,
    );
  }
  const expiresIn = requestedExpiry(params.get('requested_expiry'), ciba);

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

/**
 * The user of the id_token_hint: an ID token of this realm (signature checked against the keys
 * still published, expiry not) issued to this very client, whose account still exists.
 */
async function hintedUser(params: Params, client: Client, context: RealmContext): Promise<string> {
  const hint = params.get('id_token_hint');
  if (hint === undefined) throw new OAuthError('invalid_request', 'id_token_hint is required');
  const claims = await verifyIdTokenHint(context, hint);
  if (!claims) {
    throw new OAuthError('invalid_request', 'id_token_hint is not an ID token of this realm');
  }
  if (!claims.audience.includes(client.id)) {
    throw new OAuthError('invalid_request', 'id_token_hint was issued to another client');
  }
  if (!(await context.accounts.findAccount(context.realm.name, claims.sub))) {
    throw new OAuthError('unknown_user_id', 'the user of id_token_hint is not known');
  }
  return claims.sub;
}

/** `requested_expiry` in seconds (standalone-server contract), capped at the realm's maximum. */
function requestedExpiry(
  value: string | undefined,
  ciba: { expires_in: number; max_expires_in: number },
): number {
  if (value === undefined) return ciba.expires_in;
  if (!SECONDS.test(value) || Number(value) === 0) {
    throw new OAuthError(
      'invalid_request',
      'requested_expiry must be a positive number of seconds',
    );
  }
  return Math.min(Number(value), ciba.max_expires_in);
}

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
