import { createProvider, type Provider, type Store } from '@gatehouse-oidc/core';
import { PostgresStore } from '@gatehouse-oidc/store-postgres';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization, FORM_HEADERS, form } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';

/**
 * Two providers on one shared store, first PostgreSQL, then Redis: a client registered at one is
 * known at the other, the cap on registered clients holds when both register at once, and a
 * deletion at one ends the client at the other.
 */

const BASE_URL = 'https://idp.registered-clients.test';
const MAX_CLIENTS = 3;

function storeOf(backend: StoreUnderTest): Store {
  const { store, store_options: options } = backend.settings();
  return store.startsWith('postgres')
    ? new PostgresStore({ connectionString: store, tablePrefix: String(options.table_prefix) })
    : new RedisStore({ url: store, keyPrefix: String(options.key_prefix) });
}

const instance = (store: Store): Provider =>
  createProvider({
    baseUrl: BASE_URL,
    store,
    realms: [
      {
        name: 'shared',
        scopes: ['openid', 'api:read'],
        registration: {
          open: true,
          max_clients: MAX_CLIENTS,
          grant_types: ['client_credentials'],
        },
      },
    ],
  });

const register = (provider: Provider) =>
  provider.handle({
    method: 'POST',
    path: '/oauth/shared/register',
    query: '',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'api:read' }),
  });

const configuration = (provider: Provider, answer: Record<string, string>, method: string) =>
  provider.handle({
    method,
    path: new URL(answer.registration_client_uri ?? '').pathname,
    query: '',
    headers: { authorization: `Bearer ${answer.registration_access_token}` },
  });

const machineToken = (provider: Provider, answer: Record<string, string>) =>
  provider.handle({
    method: 'POST',
    path: '/oauth/shared/token',
    query: '',
    headers: {
      ...FORM_HEADERS,
      authorization: basicAuthorization(answer.client_id ?? '', answer.client_secret ?? ''),
    },
    body: form({ grant_type: 'client_credentials' }),
  });

describe.each(await storesUnderTest('registered'))(
  'two instances sharing one $name',
  ({ store }) => {
    describe.skipIf(!store)('with a realm that registers clients', () => {
      const backend = store as StoreUnderTest;
      let stores: Store[];
      let a: Provider;
      let b: Provider;

      beforeAll(async () => {
        await backend.migrate();
        stores = [storeOf(backend), storeOf(backend)];
        [a, b] = stores.map(instance) as [Provider, Provider];
      });
      afterAll(async () => {
        await Promise.all([a.close(), b.close()]);
        await backend.cleanUp();
      });

      it('sees a client registered at the other, counts both toward one cap, and ends it at both', async () => {
        const answers = await Promise.all(
          Array.from({ length: 2 * MAX_CLIENTS }, (_, index) => register(index % 2 ? a : b)),
        );
        const statuses = answers.map((answer) => answer.status).sort();
        expect(statuses).toEqual([
          ...Array(MAX_CLIENTS).fill(201),
          ...Array(MAX_CLIENTS).fill(429),
        ]);
        const created = answers
          .filter((answer) => answer.status === 201)
          .map((answer) => JSON.parse(answer.body ?? '{}') as Record<string, string>);
        const [first] = created as [Record<string, string>];
        expect(new Set(await b.clients.listRegistered('shared'))).toEqual(
          new Set(created.map((answer) => answer.client_id)),
        );

        expect((await machineToken(a, first)).status).toBe(200);
        expect((await machineToken(b, first)).status).toBe(200);
        expect((await configuration(b, first, 'GET')).status).toBe(200);

        expect((await configuration(a, first, 'DELETE')).status).toBe(204);
        expect((await configuration(b, first, 'GET')).status).toBe(401);
        expect((await machineToken(b, first)).status).toBe(401);
        expect((await register(b)).status).toBe(201);
      });
    });
  },
);
