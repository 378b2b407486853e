import { PostgresStore } from '@gatehouse-oidc/store-postgres';
import { ApiRealms } from '../../packages/server/src/realms/api-realms.js';
import { SecretBox } from '../../packages/server/src/realms/secret-box.js';
import { fleetRealm, fleetRealmName } from './realm-fleet.js';

/**
 * Writes realms `from … count-1` of the fleet straight into the server's PostgreSQL table,
 * through the server's own `ApiRealms` (the class the admin API writes with: client secrets
 * sealed with the key `cookieSecret` derives, the record and the change announcement it writes),
 * so the stored format cannot drift from what `PUT /admin/realms/{realm}` stores. What it skips
 * is the admin API's HTTP round trip and its validation of each body: every realm of the fleet
 * has the same shape as those written through the API, and each is read back and served by the
 * measured server when it is touched.
 */
export async function seedFleet(
  target: { url: string; tablePrefix: string; cookieSecret: string },
  {
    from,
    count,
    clients,
    inFlight,
  }: { from: number; count: number; clients: number; inFlight: number },
  progress: (written: number) => void,
): Promise<void> {
  const store = new PostgresStore({
    connectionString: target.url,
    tablePrefix: target.tablePrefix,
    poolSize: inFlight,
    sweepIntervalMs: 0,
  });
  const realms = new ApiRealms(store, new SecretBox(target.cookieSecret));
  let next = from;
  let written = 0;
  const step = Math.max(1, Math.floor((count - from) / 10));
  const writer = async () => {
    for (let index = next++; index < count; index = next++) {
      const name = fleetRealmName(index);
      if (!(await realms.write(name, undefined, fleetRealm(index, clients)))) {
        throw new Error(`realm ${name} already exists in the store`);
      }
      if (++written % step === 0) progress(written);
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, writer));
  } finally {
    await store.close();
  }
}
