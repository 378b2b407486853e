import type { Provider } from '@gatehouse-oidc/core';

/** Users handled at once: each is a few store operations, and a realm may have thousands. */
const USERS_AT_ONCE = 16;

/**
 * Revokes what a client just deleted through the admin API leaves: every token it holds, its own
 * (client_credentials) and every user's, at once through the store, then every user's grant to
 * it, consent included. So a client created again under the same client_id starts with nothing of
 * the old one.
 */
export async function revokeClientGrants(
  provider: Provider,
  realm: string,
  clientId: string,
  subs: readonly string[],
): Promise<void> {
  await provider.clients.revokeTokens(realm, clientId);
  await eachUser(subs, (sub) => provider.grants.revoke(realm, sub, clientId));
}

/**
 * Ends every user's sessions in a realm about to be deleted through the admin API, revokes their
 * grants and every token of its clients: a realm created again under the same name starts with
 * none of its sessions, consents or tokens.
 */
export async function endRealmSignIns(
  provider: Provider,
  realm: string,
  { subs, clientIds }: { subs: readonly string[]; clientIds: readonly string[] },
): Promise<void> {
  await Promise.all(clientIds.map((clientId) => provider.clients.revokeTokens(realm, clientId)));
  await eachUser(subs, async (sub) => {
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
