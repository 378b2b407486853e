import type { RealmContext } from '../context.js';
import { SESSION_NAMESPACE, type SessionRecord } from './session.js';

/** Compare-and-set attempts on the record before giving up. */
const MAX_ATTEMPTS = 8;

/**
 * Ends a session: from the first step on it signs nobody in and takes no new grant, then every
 * grant it gave a client is revoked (each client's codes, access tokens and refresh tokens of
 * this session stop working), then the record goes. Returns the record as it was, for the
 * logout notifications, or undefined when there is no such live session. A session whose ending
 * failed half-way is finished here, without being returned again.
 */
export async function endSessionRecord(
  context: RealmContext,
  id: string,
): Promise<SessionRecord | undefined> {
  const { store } = context;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const read = await store.read<SessionRecord>(SESSION_NAMESPACE, id);
    if (!read) return undefined;
    const record = read.value;
    const ending = record.ended === true;
    if (
      ending ||
      (await store.replace(SESSION_NAMESPACE, id, read.revision, { ...record, ended: true }))
    ) {
      await Promise.all(record.grants.map((grant) => store.revokeGrant(grant.grantId)));
      await store.delete(SESSION_NAMESPACE, id);
      return ending ? undefined : record;
    }
  }
  throw new Error('the session kept changing while it was ended');
}
