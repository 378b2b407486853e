import { createProvider, type Provider, SIGNING_ALGORITHMS } from '@gatehouse-oidc/core';

// Bundled into test/runtimes/runtime-app.ts: nothing here may import Node.

export const SIGNING_PREFIX = '/signing';
export const SIGNING_BASE_URL = `https://idp.example.test${SIGNING_PREFIX}`;
export const SIGNING_CLIENT = { id: 'signing-client', secret: 'signing-secret-0123456789abcdef' };

/** Realm `es256`, `eddsa`, … for each algorithm Gatehouse signs with, one client each. */
export function signingProvider(): Provider {
  return createProvider({
    baseUrl: SIGNING_BASE_URL,
    realms: SIGNING_ALGORITHMS.map((alg) => ({
      name: alg.toLowerCase(),
      signing_alg: alg,
      scopes: ['api:read'],
      clients: [
        {
          client_id: SIGNING_CLIENT.id,
          client_secret: SIGNING_CLIENT.secret,
          token_endpoint_auth_method: 'client_secret_post' as const,
          grant_types: ['client_credentials' as const],
          scope: 'api:read',
        },
      ],
    })),
  });
}
