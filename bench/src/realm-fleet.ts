import type { Standalone } from './standalone.js';
import {
  BENCH_API_CLIENT,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_SERVICE_CLIENT,
  checkTokenEndpoint,
  type TokenEndpoint,
} from './token-request.js';

/**
 * The realms of the `realms` scenario: many tenants of the same shape, written through the admin
 * API. Every realm has the bench's machine client first, so one token request body serves every
 * realm (TOKEN_REQUEST_BODY) and only the path tells the realm.
 */

export const fleetRealmName = (index: number) => `tenant-${index}`;

export const tokenPath = (realm: string) => `/oauth/${realm}/token`;
export const discoveryPath = (realm: string) => `/oauth/${realm}/.well-known/openid-configuration`;

/** The bench's token endpoint in `realm`, with the JWKS its tokens verify against. */
export const fleetEndpoint = (origin: string, realm: string): TokenEndpoint => ({
  baseUrl: origin,
  tokenPath: tokenPath(realm),
  jwksPath: `/oauth/${realm}/jwks`,
});

/**
 * Realm `index` of the fleet as an operator writes it through the admin API, with `clients`
 * clients (at least two): the bench's machine client, more like it (`client_credentials`,
 * `client_secret_post`), and the API they call.
 */
export function fleetRealm(index: number, clients: number): Record<string, unknown> {
  const services = Array.from({ length: Math.max(0, clients - 2) }, (_, service) => ({
    ...BENCH_SERVICE_CLIENT,
    client_id: `service-${service + 1}`,
    client_name: `Service ${service + 1} of tenant ${index}`,
  }));
  return {
    name: fleetRealmName(index),
    scopes: [BENCH_SCOPE],
    resources: [
      { uri: BENCH_RESOURCE, client_id: BENCH_API_CLIENT.client_id, scopes: [BENCH_SCOPE] },
    ],
    clients: [BENCH_SERVICE_CLIENT, ...services, BENCH_API_CLIENT],
  };
}

/**
 * Writes realms `0 … count-1` through the admin API, `inFlight` at a time, telling progress every
 * tenth of the way. Throws at the first write answered neither 201 nor 200.
 */
export async function writeFleet(
  server: Standalone,
  { count, clients, inFlight }: { count: number; clients: number; inFlight: number },
  progress: (written: number) => void,
): Promise<void> {
  let next = 0;
  let written = 0;
  const step = Math.max(1, Math.floor(count / 10));
  const writer = async () => {
    for (let index = next++; index < count; index = next++) {
      const name = fleetRealmName(index);
      const response = await server.admin(`/realms/${name}`, {
        method: 'PUT',
        body: JSON.stringify(fleetRealm(index, clients)),
      });
      const text = await response.text();
      if (response.status !== 201 && response.status !== 200) {
        throw new Error(`PUT /admin/realms/${name} answered ${response.status}: ${text}`);
      }
      if (++written % step === 0) progress(written);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, writer));
}

/** The realm's token answer checked as every server's is before it is measured. */
export const checkFleetRealm = (origin: string, realm: string) =>
  checkTokenEndpoint(fleetEndpoint(origin, realm));
