import type { Store } from '../store/store.js';

/**
 * The client_ids registered in one realm, as one record every instance sharing the store changes
 * by compare-and-set (`read` then `replace`): what the realm's `max_clients` is counted against
 * and what the admin API lists. A removal that failed after deleting the client leaves its id
 * behind; the next sweep drops it.
 */
const NAMESPACE = 'registered_client_index';
/** Compare-and-set attempts before a change is given up as contended. */
const ATTEMPTS = 20;

interface ClientIndex {
  ids: string[];
}

export class ClientIndexContended extends Error {
  override name = 'ClientIndexContended';
}

/** The realm's registered client_ids, the oldest first. */
export async function indexedClientIds(store: Store, realmName: string): Promise<string[]> {
  return (await store.get<ClientIndex>(NAMESPACE, realmName))?.ids ?? [];
}

/** Adds `clientId` unless the realm already holds `max`; false when it is full. */
export function indexClient(
  store: Store,
  realmName: string,
  clientId: string,
  max: number,
): Promise<boolean> {
  return changeIndex(store, realmName, (ids) =>
    ids.length >= max ? undefined : [...ids, clientId],
  );
}

/** Removes these client_ids; resolves once none of them is listed. */
export async function unindexClients(
  store: Store,
  realmName: string,
  clientIds: readonly string[],
): Promise<void> {
  const gone = new Set(clientIds);
  await changeIndex(store, realmName, (ids) =>
    ids.some((id) => gone.has(id)) ? ids.filter((id) => !gone.has(id)) : undefined,
  );
}

/**
 * Applies `change` to the index until a write of its result is not overtaken by another
 * instance's; `change` answers undefined to leave the index as it is (then false).
 */
async function changeIndex(
  store: Store,
  realmName: string,
  change: (ids: readonly string[]) => string[] | undefined,
): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await store.read<ClientIndex>(NAMESPACE, realmName);
    const ids = change(current?.value.ids ?? []);
    if (ids === undefined) return false;
    const written = current
      ? await store.replace<ClientIndex>(NAMESPACE, realmName, current.revision, { ids })
      : await store.add<ClientIndex>(NAMESPACE, realmName, { ids });
    if (written) return true;
  }
  throw new ClientIndexContended(`the registered clients of realm "${realmName}" kept changing`);
}
