import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import {
  BENCH_API_CLIENT,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_SERVICE_CLIENT,
} from '../token-request.js';
import type { RunningServer } from './running-server.js';

const REALM = 'bench';

/**
 * The standalone server as an operator runs it (`gatehouse serve` builds the same server): its
 * defaults (memory store, node:crypto signer, ES256, its event log on stderr), one realm with the
 * bench's machine client and API. It answers client_credentials only here: the user grants would
 * need its sign-in pages to mint their credentials.
 */
export async function startStandaloneServer(): Promise<RunningServer> {
  const config = parseServerConfig({
    base_url: 'http://127.0.0.1',
    realms: [
      {
        name: REALM,
        scopes: [BENCH_SCOPE],
        resources: [
          { uri: BENCH_RESOURCE, client_id: BENCH_API_CLIENT.client_id, scopes: [BENCH_SCOPE] },
        ],
        clients: [BENCH_SERVICE_CLIENT, BENCH_API_CLIENT],
      },
    ],
  });
  const { app } = buildServer(config);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: origin,
    tokenPath: `/oauth/${REALM}/token`,
    jwksPath: `/oauth/${REALM}/jwks`,
    close: () => app.close(),
  };
}
