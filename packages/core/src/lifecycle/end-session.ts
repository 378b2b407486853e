import type { RealmContext } from '../context.js';
import { SESSION_NAMESPACE, type SessionRecord } from '../sessions/session.js';
import { CHANGED, untilSettled } from '../store/transition.js';

/**
 * Ends a session: from the first step on it signs nobody in and takes no new grant, then every
 * grant it gave a client is revoked (each client's codes, access tokens and refresh tokens of
 * this session stop working), then the record goes. A session whose ending failed half-way (a
 * store outage) is finished the same way. Returns the record as it was, for the logout
 * notifications, to the one call whose delete removed it, or undefined: there was no such
 * session, or a concurrent call finished it.
 */
export async function endSessionRecord(
  context: RealmContext,
  id: string,
): Promise<SessionRecord | undefined> {
  const { store } = context;
  return untilSettled(async () => {
    const read = await store.read<SessionRecord>(SESSION_NAMESPACE, id);
    if (!read) return undefined;
    const record = read.value;
    if (
      record.ended !== true &&
      !(await store.replace(SESSION_NAMESPACE, id, read.revision, { ...record, ended: true }))
    )
      return CHANGED;
    await Promise.all(record.grants.map((grant) => store.revokeGrant(grant.grantId)));
    const { ended: _, ...asItWas } = record;
    return (await store.delete(SESSION_NAMESPACE, id)) ? asItWas : undefined;
  }, 'the session');
}
