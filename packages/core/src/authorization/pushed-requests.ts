import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { type Params, paramsFromPairs } from '../http/form.js';
import { shownAtProvider } from './authorization-error.js';

const NAMESPACE = 'pushed_request';
/** RFC 9126 §2.2: the URN prefix of a pushed request's reference. */
export const PUSHED_REQUEST_URN = 'urn:ietf:params:oauth:request_uri:';
/** RFC 9126 §2.2 suggests a short life: long enough to send the browser, no longer. */
export const PUSHED_REQUEST_SECONDS = 60;
/** Parameters that authenticate the client at the PAR endpoint; never kept with the request. */
const CLIENT_AUTHENTICATION = new Set([
  'client_secret',
  'client_assertion',
  'client_assertion_type',
]);

/** A pushed authorization request, kept until the authorization endpoint takes it. */
export interface PushedRequest {
  clientId: string;
  /** The request's parameters, as pushed (or as its request object carried them). */
  params: Array<[string, string]>;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/**
 * Keeps the parameters of a validated pushed request under a fresh reference of 256 random bits
 * (RFC 9126 §2.2 asks for at least 128); the store keeps only its digest.
 */
export async function keepPushedRequest(
  context: RealmContext,
  clientId: string,
  params: Params,
): Promise<{ requestUri: string; expiresIn: number }> {
  const reference = randomId(32);
  const record: PushedRequest = {
    clientId,
    params: params
      .names()
      .filter((name) => !CLIENT_AUTHENTICATION.has(name))
      .map((name) => [name, params.get(name) ?? '']),
    expiresAt: nowSeconds(context) + PUSHED_REQUEST_SECONDS,
  };
  await context.store.set(NAMESPACE, recordId(context, reference), record, {
    ttlSeconds: PUSHED_REQUEST_SECONDS,
  });
  return { requestUri: `${PUSHED_REQUEST_URN}${reference}`, expiresIn: PUSHED_REQUEST_SECONDS };
}

/**
 * The pushed request a request_uri names, taken: RFC 9126 §4 makes a reference one-time, so a
 * second use, like an expired or unknown reference, finds nothing.
 */
export async function takePushedRequest(
  context: RealmContext,
  requestUri: string,
): Promise<PushedRequest | undefined> {
  if (!requestUri.startsWith(PUSHED_REQUEST_URN)) return undefined;
  const reference = requestUri.slice(PUSHED_REQUEST_URN.length);
  const taken = await context.store.consume<PushedRequest>(NAMESPACE, recordId(context, reference));
  if (!taken?.firstUse || taken.value.expiresAt <= nowSeconds(context)) return undefined;
  return taken.value;
}

const recordId = (context: RealmContext, reference: string) =>
  `${context.realm.name}/${tokenDigest(reference)}`;

/**
 * RFC 9126 §4: an authorization request that references a pushed request is that request, its
 * own parameters aside from client_id, which must name the client that pushed it. Other requests
 * pass unchanged (a request_uri that is no PAR reference is refused by the checks).
 */
export async function resolvePushedRequest(
  params: Params,
  context: RealmContext,
): Promise<{ params: Params; pushed: boolean }> {
  const requestUri = params.get('request_uri');
  if (requestUri === undefined || !requestUri.startsWith(PUSHED_REQUEST_URN)) {
    return { params, pushed: false };
  }
  if (params.repeated.has('request_uri') || params.repeated.has('client_id')) {
    throw shownAtProvider('invalid_request', 'client_id or request_uri is repeated');
  }
  const pushed = await takePushedRequest(context, requestUri);
  if (!pushed) {
    throw shownAtProvider(
      'invalid_request_uri',
      'request_uri is unknown, expired or already used; push the request again',
    );
  }
  if (params.get('client_id') !== pushed.clientId) {
    throw shownAtProvider('invalid_request_uri', 'request_uri was pushed by another client');
  }
  const stored = paramsFromPairs([
    ...pushed.params.filter(([name]) => name !== 'client_id'),
    ['client_id', pushed.clientId],
  ]);
  return { params: stored, pushed: true };
}
