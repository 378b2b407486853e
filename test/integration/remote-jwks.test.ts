import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProvider, type Provider, type RealmInput } from '@gatehouse-oidc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientKeyPair, clientAssertion, clientKeyPair, form } from '../support/fixtures.js';

/**
 * A client authenticating with private_key_jwt against keys it publishes at a jwks_uri, with
 * what a stranger may send: assertions naming keys the client never had (issue 13, finding 1),
 * and a key server that answers too much or too slowly (finding 3).
 */
const BASE_URL = 'https://idp.example.com';
const ISSUER = `${BASE_URL}/oauth/keys`;

let clientKeys: ClientKeyPair;
let strangerKeys: ClientKeyPair;
let jwksServer: Server;
let jwksBase: string;
const fetchesOf = new Map<string, number>();

beforeAll(async () => {
  clientKeys = await clientKeyPair('ES256', 'client-key');
  strangerKeys = await clientKeyPair('ES256', 'nope');
  jwksServer = createServer((request, response) => {
    response.on('error', () => {});
    const path = request.url ?? '';
    fetchesOf.set(path, (fetchesOf.get(path) ?? 0) + 1);
    if (path === '/huge') return flood(response);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [clientKeys.publicJwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksBase = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
});

afterAll(() => {
  jwksServer.closeAllConnections();
  return new Promise((resolve) => jwksServer.close(resolve));
});

/** A JWK Set document that never ends. */
function flood(response: import('node:http').ServerResponse) {
  response.writeHead(200, { 'content-type': 'application/json' });
  const chunk = ' '.repeat(64 * 1024);
  const more = () => {
    if (!response.destroyed) response.write(chunk, more);
  };
  response.write('{"keys":[', more);
}

function realm(jwksPath: string): RealmInput {
  return {
    name: 'keys',
    scopes: ['api:read'],
    clients: [
      {
        client_id: 'signer',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `${jwksBase}${jwksPath}`,
        grant_types: ['client_credentials'],
        scope: 'api:read',
      },
    ],
  };
}

async function tokenRequest(provider: Provider, keys: ClientKeyPair) {
  const assertion = await clientAssertion(
    keys.privateKey,
    'ES256',
    { iss: 'signer', aud: ISSUER },
    {
      kid: keys.publicJwk.kid,
    },
  );
  const response = await provider.handle({
    method: 'POST',
    path: '/oauth/keys/token',
    query: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }),
  });
  return { status: response.status, error: JSON.parse(response.body ?? '{}').error };
}

describe('a client whose keys are at a jwks_uri', () => {
  it('is not locked out by an assertion naming a key it does not have', async () => {
    const provider = createProvider({ baseUrl: BASE_URL, realms: [realm('/lockout')] });
    expect(await tokenRequest(provider, strangerKeys)).toEqual({
      status: 400,
      error: 'invalid_client',
    });
    expect((await tokenRequest(provider, clientKeys)).status).toBe(200);
    await provider.close();
  });

  it('keeps its fetched keys when the host realm loader builds the realm anew on each request', async () => {
    const provider = createProvider({
      baseUrl: BASE_URL,
      realms: (name) => (name === 'keys' ? realm('/loader') : undefined),
    });
    for (let i = 0; i < 5; i++) expect((await tokenRequest(provider, clientKeys)).status).toBe(200);
    expect(fetchesOf.get('/loader')).toBe(1);
    await provider.close();
  });

  it('gets invalid_client when its jwks_uri answers an endless document, and it is read once', async () => {
    const errors: unknown[] = [];
    const provider = createProvider({
      baseUrl: BASE_URL,
      realms: [realm('/huge')],
      onError: (error) => errors.push(error),
    });
    const memoryBefore = process.memoryUsage().rss;
    for (let i = 0; i < 3; i++) {
      expect(await tokenRequest(provider, clientKeys)).toEqual({
        status: 400,
        error: 'invalid_client',
      });
    }
    expect(fetchesOf.get('/huge')).toBe(1);
    expect(errors).toHaveLength(1);
    expect(process.memoryUsage().rss - memoryBefore).toBeLessThan(64 * 1024 * 1024);
    await provider.close();
  });
});
