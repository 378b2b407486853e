import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { StoreUnavailableError } from '../errors/oauth-error.js';
import type { ConsumeResult, Revised } from '../store/store.js';
import { CHANGED, untilSettled } from '../store/transition.js';
import { newUserCode } from './user-code.js';

export const DEVICE_REQUEST_NAMESPACE = 'device_request';
const USER_CODE_NAMESPACE = 'device_user_code';
/** How long an expired request is remembered, so its polls hear expired_token rather than invalid_grant. */
const EXPIRED_MEMORY_SECONDS = 600;
/** New user codes drawn when one is taken by a live request: 20^8 codes make a second clash rare. */
const USER_CODE_DRAWS = 4;

/** pending → approved | denied (the user, in a browser); approved is spent once by a poll. */
export type DeviceRequestState = 'pending' | 'approved' | 'denied';

/** How the user approved, and what: the tokens' family is made of it. */
export interface DeviceApproval {
  sub: string;
  /** The scopes the user consented to: those asked for, or fewer. */
  scopes: string[];
  authTime: number;
  acr?: string;
  amr?: string[];
}

export interface DeviceRequestRecord {
  realm: string;
  clientId: string;
  scopes: string[];
  resource?: string;
  /** The user code as stored (no dash), shown again on the consent page for the user to compare. */
  userCode: string;
  state: DeviceRequestState;
  /** Seconds since the epoch. */
  expiresAt: number;
  /** Seconds between polls; each slow_down adds 5 (RFC 8628 §3.5). */
  interval: number;
  /** Milliseconds since the epoch of the last poll, or of the request before any. */
  lastPollAtMs: number;
  approval?: DeviceApproval;
}

/**
 * Where the store keeps a request: under the digest of its device_code, never the code itself.
 * Handed to the browser side (the interaction) in place of the code.
 */
export const deviceRequestId = (deviceCode: string): string => tokenDigest(deviceCode);

/**
 * Stores a new pending request under a new device_code (256 random bits) and a user code no
 * live request of the realm has. Returns both codes. A public client needs no secret to ask, so
 * both records are capped per realm (`limits.deviceRequestsPerRealm`): a flood drops the oldest
 * requests, whose devices start over, and never fills the store.
 */
export async function createDeviceRequest(
  context: RealmContext,
  fields: Omit<DeviceRequestRecord, 'userCode'>,
): Promise<{ deviceCode: string; userCode: string }> {
  const deviceCode = randomId(32);
  const requestId = deviceRequestId(deviceCode);
  const ttlSeconds = fields.expiresAt - nowSeconds(context) + EXPIRED_MEMORY_SECONDS;
  const capped = (kind: string) => ({
    ttlSeconds,
    caps: [
      { key: `device/${context.realm.name}/${kind}`, max: context.limits.deviceRequestsPerRealm },
    ],
  });
  for (let draw = 0; draw < USER_CODE_DRAWS; draw++) {
    const userCode = newUserCode();
    const index = userCodeId(context, userCode);
    // Capped records have no atomic add: two requests drawing the same one of 20^8 codes in the
    // same instant is the only way one could take the other's, and both devices show that code.
    if (await context.store.get(USER_CODE_NAMESPACE, index)) continue;
    await context.store.setCapped(
      DEVICE_REQUEST_NAMESPACE,
      recordId(context, requestId),
      { ...fields, userCode },
      capped('requests'),
    );
    await context.store.setCapped(USER_CODE_NAMESPACE, index, { requestId }, capped('user-codes'));
    return { deviceCode, userCode };
  }
  throw new StoreUnavailableError('no free user code was drawn');
}

/** The request of a device_code's digest, with its revision. */
export function readDeviceRequest(
  context: RealmContext,
  requestId: string,
): Promise<Revised<DeviceRequestRecord> | undefined> {
  return context.store.read<DeviceRequestRecord>(
    DEVICE_REQUEST_NAMESPACE,
    recordId(context, requestId),
  );
}

/**
 * The request a user typed the code of, while the user may still answer it: pending and
 * unexpired. Undefined for anything else, so a page cannot tell an unknown code from a used one.
 */
export async function pendingRequestOfUserCode(
  context: RealmContext,
  userCode: string,
): Promise<{ requestId: string; record: DeviceRequestRecord } | undefined> {
  const index = await context.store.get<{ requestId: string }>(
    USER_CODE_NAMESPACE,
    userCodeId(context, userCode),
  );
  const read = index && (await readDeviceRequest(context, index.requestId));
  if (!index || read?.value.state !== 'pending' || nowSeconds(context) >= read.value.expiresAt) {
    return undefined;
  }
  return { requestId: index.requestId, record: read.value };
}

/** One atomic transition: false when a poll or a decision changed the request since it was read. */
export function replaceDeviceRequest(
  context: RealmContext,
  requestId: string,
  revision: number,
  record: DeviceRequestRecord,
): Promise<boolean> {
  return context.store.replace(
    DEVICE_REQUEST_NAMESPACE,
    recordId(context, requestId),
    revision,
    record,
  );
}

/** Spends an approved request: `firstUse` is true for exactly one of any number of racing polls. */
export function consumeDeviceRequest(
  context: RealmContext,
  requestId: string,
): Promise<ConsumeResult<DeviceRequestRecord> | undefined> {
  return context.store.consume<DeviceRequestRecord>(
    DEVICE_REQUEST_NAMESPACE,
    recordId(context, requestId),
  );
}

export type DeviceDecision = { approve: DeviceApproval } | { deny: true };

/**
 * The user's answer in the browser: moves a pending, unexpired request to approved or denied.
 * False when the request is unknown, expired or already answered. A poll racing the decision only
 * changes `lastPollAtMs`, so the decision is re-read and retried until one of them holds.
 */
export function decideDeviceRequest(
  context: RealmContext,
  requestId: string,
  decision: DeviceDecision,
): Promise<boolean> {
  return untilSettled(async () => {
    const read = await readDeviceRequest(context, requestId);
    if (read?.value.state !== 'pending' || nowSeconds(context) >= read.value.expiresAt)
      return false;
    const next: DeviceRequestRecord =
      'deny' in decision
        ? { ...read.value, state: 'denied' }
        : { ...read.value, state: 'approved', approval: decision.approve };
    return (await replaceDeviceRequest(context, requestId, read.revision, next)) ? true : CHANGED;
  }, 'the device request');
}

const recordId = (context: RealmContext, requestId: string) => `${context.realm.name}/${requestId}`;
const userCodeId = (context: RealmContext, userCode: string) =>
  `${context.realm.name}/${tokenDigest(userCode)}`;
