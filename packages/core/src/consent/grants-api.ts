import { nowSeconds, type RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import { notifyGrantRevoked } from '../logout/notify-clients.js';
import { isLive, SESSION_NAMESPACE, type SessionRecord } from '../sessions/session.js';
import { userRecords } from '../sessions/user-index.js';
import { listConsents, revokeConsent } from './consents.js';

/** A user's grant to a client as the grants API shows it. */
export interface GrantSummary {
  clientId: string;
  /** The scopes the user granted the client, over all its authorizations. */
  scopes: string[];
  /** Seconds since the epoch when the user first granted them. */
  createdAt: number;
}

/** The user's grants in the realm, the oldest first. */
export async function listGrants(context: RealmContext, sub: string): Promise<GrantSummary[]> {
  const consents = await listConsents(context, sub);
  return consents
    .sort((a, b) => a.createdAt - b.createdAt || a.clientId.localeCompare(b.clientId))
    .map(({ clientId, scopes, createdAt }) => ({ clientId, scopes: [...scopes], createdAt }));
}

/**
 * Revokes the user's grant to the client: every code, access token and refresh token the client
 * holds for the user stops working, its next authorization asks for consent again, and it hears
 * of it by back-channel logout (in the background). False when the user has no grant to the client.
 */
export async function revokeUserGrant(
  context: RealmContext,
  sub: string,
  clientId: string,
): Promise<boolean> {
  if ((await revokeConsent(context, sub, clientId)) === undefined) return false;
  emitEvent(context, { type: 'grant_revoked', sub, clientId });
  const now = nowSeconds(context);
  const sessions = (await userRecords<SessionRecord>(context, sub, SESSION_NAMESPACE))
    .map((read) => read.value)
    .filter((record) => isLive(record, now));
  void notifyGrantRevoked(context, sub, clientId, sessions);
  return true;
}
