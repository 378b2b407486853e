import { MemoryStore } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, validConfig, withChanges } from './support.js';

/**
 * Dynamic client registration on the standalone server: the realm option passes through the
 * config file, the registered client is listed, shown and deleted by the admin API beside the
 * configured ones, and its credentials never appear there.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const INITIAL_TOKEN = 'initial-access-token-of-the-demo-realm-0123';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function start(): FastifyInstance {
  const config = parseServerConfig(
    withChanges(validConfig(), {
      base_url: BASE_URL,
      'realms.0.registration': { initial_access_token: INITIAL_TOKEN },
    }),
  );
  const { app } = buildServer(config);
  apps.push(app);
  return app;
}

async function register(app: FastifyInstance) {
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/demo/register',
    headers: { authorization: `Bearer ${INITIAL_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ redirect_uris: ['https://app.example.org/cb'], client_name: 'Reg' }),
  });
  expect(response.statusCode).toBe(201);
  return response.json() as Record<string, string>;
}

describe('dynamic client registration on the standalone server', () => {
  it('registers through the realm of the config file, says so in discovery, and hides the initial token', async () => {
    const app = start();
    const metadata = await app.inject(`/oauth/demo/.well-known/openid-configuration`);
    expect(metadata.json().registration_endpoint).toBe(`${BASE_URL}/oauth/demo/register`);
    const answer = await register(app);
    expect(answer.registration_client_uri).toBe(
      `${BASE_URL}/oauth/demo/register/${answer.client_id}`,
    );
    const realm = await app.inject({ url: '/admin/realms/demo', headers: ADMIN });
    expect(realm.json().registration).toMatchObject({ max_clients: 1000 });
    expect(realm.body).not.toContain(INITIAL_TOKEN);
  });

  it('lists configured and registered clients, shows and deletes a registered one', async () => {
    const app = start();
    const answer = await register(app);
    const listed = await app.inject({ url: '/admin/realms/demo/clients', headers: ADMIN });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({ clients: ['service', 'api', 'web', answer.client_id] });

    const shown = await app.inject({
      url: `/admin/realms/demo/clients/${answer.client_id}`,
      headers: ADMIN,
    });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({
      client_id: answer.client_id,
      client_name: 'Reg',
      redirect_uris: ['https://app.example.org/cb'],
    });
    for (const secret of [answer.client_secret, answer.registration_access_token]) {
      expect(shown.body).not.toContain(secret);
    }

    const deleted = await app.inject({
      method: 'DELETE',
      url: `/admin/realms/demo/clients/${answer.client_id}`,
      headers: ADMIN,
    });
    expect(deleted.statusCode).toBe(204);
    const read = await app.inject({
      url: `/oauth/demo/register/${answer.client_id}`,
      headers: { authorization: `Bearer ${answer.registration_access_token}` },
    });
    expect(read.statusCode).toBe(401);
    const after = await app.inject({ url: '/admin/realms/demo/clients', headers: ADMIN });
    expect(after.json()).toEqual({ clients: ['service', 'api', 'web'] });
    const missing = await app.inject({ url: '/admin/realms/nowhere/clients', headers: ADMIN });
    expect(missing.statusCode).toBe(404);
  });
});

describe('a realm with registration written through the admin API', () => {
  const SHOP_TOKEN = 'initial-access-token-of-the-shop-realm-0123';

  async function registerIn(app: FastifyInstance, token: string) {
    return app.inject({
      method: 'POST',
      url: '/oauth/shop/register',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ redirect_uris: ['https://app.example.org/cb'] }),
    });
  }

  it('keeps its initial access token sealed in the store, never shows it, and keeps it on a PUT without it', async () => {
    const store = new MemoryStore();
    const { app } = buildServer(parseServerConfig(validConfig()), { store });
    apps.push(app);
    const put = (body: unknown) =>
      app.inject({
        method: 'PUT',
        url: '/admin/realms/shop',
        headers: { ...ADMIN, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const realm = {
      name: 'shop',
      scopes: ['openid'],
      registration: { initial_access_token: SHOP_TOKEN },
    };
    const created = await put(realm);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.body).not.toContain(SHOP_TOKEN);
    expect(JSON.stringify(await store.get('admin_realm', 'shop'))).not.toContain(SHOP_TOKEN);
    expect((await registerIn(app, SHOP_TOKEN)).statusCode).toBe(201);
    expect((await registerIn(app, `${SHOP_TOKEN}-not`)).statusCode).toBe(401);

    const shown = await app.inject({ url: '/admin/realms/shop', headers: ADMIN });
    expect(shown.body).not.toContain(SHOP_TOKEN);
    const back = await put({ ...(shown.json() as object), id_token_ttl: 600 });
    expect(back.statusCode, back.body).toBe(200);
    expect((await registerIn(app, SHOP_TOKEN)).statusCode).toBe(201);
  });
});
