import type { Provider } from '@gatehouse-oidc/core';
import type { ServerRealmConfig } from '../config/server-config.js';
import { revokeClientGrants } from '../realms/leftovers.js';

/**
 * The clients a realm's registration endpoint (RFC 7591) made, beside those of its config: the
 * admin API lists them, shows them without credentials, and deletes them like any client.
 */

/** Every client_id of the realm: configured first, then registered, the oldest first. */
export async function realmClientIds(
  provider: Provider,
  realm: ServerRealmConfig,
): Promise<string[]> {
  const configured = realm.clients.map((client) => client.client_id);
  return realm.registration
    ? [...configured, ...(await provider.clients.listRegistered(realm.name))]
    : configured;
}

/** A registered client as the admin API shows it, or undefined. */
export async function shownRegisteredClient(
  provider: Provider,
  realm: ServerRealmConfig,
  clientId: string,
): Promise<object | undefined> {
  return realm.registration ? provider.clients.registered(realm.name, clientId) : undefined;
}

/**
 * Deletes a registered client: its tokens stop working and every user's grant to it goes, as for
 * a configured client. False when the realm has no such client.
 */
export async function deleteRegisteredClient(
  provider: Provider,
  realm: ServerRealmConfig,
  clientId: string,
): Promise<boolean> {
  if (!realm.registration) return false;
  if (!(await provider.clients.deleteRegistered(realm.name, clientId))) return false;
  await revokeClientGrants(
    provider,
    realm.name,
    clientId,
    realm.users.map((user) => user.sub),
  );
  return true;
}

/** Deletes every registered client of a realm about to go, so none revives with its name. */
export async function deleteRegisteredClients(
  provider: Provider,
  realm: ServerRealmConfig,
): Promise<void> {
  if (!realm.registration) return;
  for (const clientId of await provider.clients.listRegistered(realm.name)) {
    await provider.clients.deleteRegistered(realm.name, clientId);
  }
}
