/// <reference path="./oidc-provider.d.ts" />
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import {
  BENCH_CLIENT_ID,
  BENCH_CLIENT_SECRET,
  BENCH_RESOURCE,
  BENCH_SCOPE,
} from '../token-request.js';
import type { RunningServer } from './running-server.js';

/**
 * node-oidc-provider v9 doing the same job: client_credentials with client_secret_post, an ES256
 * JWT access token for the requested resource (RFC 8707 resource indicators), in-memory adapter.
 */
export async function startOidcProvider(): Promise<RunningServer> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const provider = new Provider(issuer, {
    jwks: {
      keys: [
        { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'bench-es256' },
      ],
    },
    clients: [
      {
        client_id: BENCH_CLIENT_ID,
        client_secret: BENCH_CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: BENCH_SCOPE,
        id_token_signed_response_alg: 'ES256',
      },
    ],
    scopes: [BENCH_SCOPE],
    ttl: { ClientCredentials: 600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== BENCH_RESOURCE) throw new Error(`unexpected resource ${resource}`);
          return { scope: BENCH_SCOPE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
  });
  server.on('request', provider.callback());
  return {
    baseUrl: issuer,
    tokenPath: '/token',
    jwksPath: '/jwks',
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}
