import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import type { Revised } from '../store/store.js';

export const CIBA_NAMESPACE = 'ciba_request';
/** How long an expired request is remembered, so its polls hear expired_token rather than invalid_grant. */
const EXPIRED_MEMORY_SECONDS = 600;

/**
 * pending → approved | denied (the user), pending | approved → cancelled (a poll too soon),
 * approved → issued (the one poll that gets the tokens). docs/ciba.md draws the whole machine.
 */
export type CibaState = 'pending' | 'approved' | 'denied' | 'cancelled' | 'issued';

export interface CibaRequestRecord {
  realm: string;
  clientId: string;
  sub: string;
  scopes: string[];
  bindingMessage?: string;
  state: CibaState;
  /** Seconds since the epoch. */
  expiresAt: number;
  interval: number;
  /**
   * Milliseconds since the epoch of the last poll, or of the initiation before any: the next
   * poll is allowed `interval` later. Milliseconds, not seconds: truncating to whole seconds on
   * one instance and comparing on another would cancel a client that waited exactly `interval`.
   */
  lastPollAtMs: number;
  /** Set when the user approved. */
  approval?: { authTime: number; amr?: string[]; acr?: string };
  /**
   * Ping mode (CIBA Core 1.0 §10.2): where the client hears of the decision, and the bearer
   * token it sent for that. Kept until the request is forgotten, like the request itself; never
   * in an event, a report or an answer.
   */
  ping?: CibaPingTarget;
}

export interface CibaPingTarget {
  endpoint: string;
  clientNotificationToken: string;
}

/** Stores a new pending request and returns its auth_req_id (256 random bits). */
export async function createCibaRequest(
  context: RealmContext,
  record: CibaRequestRecord,
): Promise<string> {
  const authReqId = randomId(32);
  await context.store.set(CIBA_NAMESPACE, recordId(context, authReqId), record, {
    ttlSeconds: record.expiresAt - Math.floor(record.lastPollAtMs / 1000) + EXPIRED_MEMORY_SECONDS,
  });
  return authReqId;
}

export function readCibaRequest(
  context: RealmContext,
  authReqId: string,
): Promise<Revised<CibaRequestRecord> | undefined> {
  return context.store.read<CibaRequestRecord>(CIBA_NAMESPACE, recordId(context, authReqId));
}

/** One atomic transition: false when someone else changed the request since it was read. */
export function replaceCibaRequest(
  context: RealmContext,
  authReqId: string,
  revision: number,
  record: CibaRequestRecord,
): Promise<boolean> {
  return context.store.replace(CIBA_NAMESPACE, recordId(context, authReqId), revision, record);
}

/** The store never holds an auth_req_id itself, only its digest. */
const recordId = (context: RealmContext, authReqId: string) =>
  `${context.realm.name}/${tokenDigest(authReqId)}`;
