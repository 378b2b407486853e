import type { Provider } from '@gatehouse-oidc/core';

/** Users handled at once: each is a few store operations, and a realm may have thousands. */
const USERS_AT_ONCE = 16;

/**
 * Revokes every user's grant to a client just deleted through the admin API: its codes, access
 * and refresh tokens stop working and the consent goes, so a client created again under the same
 * client_id starts with nothing of the old one.
 */
export function revokeClientGrants(
  provider: Provider,
  realm: string,
  clientId: string,
  subs: readonly string[],
): Promise<void> {
  return eachUser(subs, (sub) => provider.grants.revoke(realm, sub, clientId));
}

/**
 * Ends every user's sessions in a realm about to be deleted through the admin API and revokes
 * their grants: a realm created again under the same name starts with none of its sessions,
 * consents or tokens.
 */
export function endRealmSignIns(
  provider: Provider,
  realm: string,
  subs: readonly string[],
): Promise<void> {
  return eachUser(subs, async (sub) => {
    await provider.sessions.endAll(realm, sub);
    const grants = await provider.grants.list(realm, sub);
    await Promise.all(grants.map(({ clientId }) => provider.grants.revoke(realm, sub, clientId)));
  });
}

async function eachUser(
  subs: readonly string[],
  work: (sub: string) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < subs.length; start += USERS_AT_ONCE) {
    await Promise.all(subs.slice(start, start + USERS_AT_ONCE).map(work));
  }
}
