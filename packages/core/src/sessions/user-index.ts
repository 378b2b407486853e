import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import type { Realm } from '../realms/realm.js';
import type { Revised } from '../store/store.js';

/**
 * The store grant every session and every consent of one user is written under: never revoked,
 * it only lets the user's records be listed together (`Store.listGrant`).
 */
export const userIndex = (realm: Realm, sub: string) =>
  `user:${tokenDigest(`${realm.name}\u0000${sub}`)}`;

/** The user's live records of one namespace, read with their revisions. */
export async function userRecords<T>(
  context: RealmContext,
  sub: string,
  namespace: string,
): Promise<Array<{ id: string } & Revised<T>>> {
  const keys = await context.store.listGrant(userIndex(context.realm, sub));
  const ids = keys.filter((key) => key.namespace === namespace).map((key) => key.id);
  const reads = await Promise.all(ids.map((id) => context.store.read<T>(namespace, id)));
  return reads.flatMap((read, index) => (read ? [{ id: ids[index] as string, ...read }] : []));
}
