import { createProvider } from '@gatehouse/core';
import { gatehouse } from '@gatehouse/fastify';
import { nodeCryptoSigner } from '@gatehouse/node-crypto';
import Fastify from 'fastify';
import {
  BENCH_CLIENT_ID,
  BENCH_CLIENT_SECRET,
  BENCH_RESOURCE,
  BENCH_SCOPE,
} from '../token-request.js';
import type { RunningServer } from './running-server.js';

const PREFIX = '/auth';
const REALM = 'bench';

/**
 * Gatehouse as an application would embed it: Fastify adapter, in-memory store, node:crypto
 * signer, ES256 JWT access tokens with the `store` retention policy (every token is recorded).
 */
export async function startOurs(): Promise<RunningServer> {
  const app = Fastify();
  const provider = createProvider({
    baseUrl: `http://127.0.0.1${PREFIX}`,
    signer: nodeCryptoSigner(),
    realms: [
      {
        name: REALM,
        signing_alg: 'ES256',
        access_token_format: 'jwt',
        access_token_retention_policy: 'store',
        scopes: ['openid', BENCH_SCOPE],
        resources: [{ uri: BENCH_RESOURCE, client_id: 'bench-api', scopes: [BENCH_SCOPE] }],
        clients: [
          {
            client_id: BENCH_CLIENT_ID,
            client_secret: BENCH_CLIENT_SECRET,
            token_endpoint_auth_method: 'client_secret_post',
            application_type: 'web',
            grant_types: ['client_credentials'],
            scope: BENCH_SCOPE,
          },
          {
            client_id: 'bench-api',
            client_secret: 'bench-api-secret-0123456789',
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
      },
    ],
  });
  await app.register(gatehouse, { provider, prefix: PREFIX });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    tokenPath: `${PREFIX}/oauth/${REALM}/token`,
    jwksPath: `${PREFIX}/oauth/${REALM}/jwks`,
    async close() {
      await app.close();
      await provider.close();
    },
  };
}
