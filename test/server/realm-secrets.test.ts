import { MemoryStore } from '@gatehouse-oidc/core';
import {
  buildServer,
  parseServerConfig,
  type Server,
  type ServerConfigInput,
} from '@gatehouse-oidc/server';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SECRETS } from '../support/fixtures.js';
import { deleteRedisKeys, uniquePrefix } from '../support/service-admin.js';
import { REDIS, serviceUrl } from '../support/services.js';
import {
  ADMIN_TOKEN,
  BOB_PASSWORD_HASH,
  CliProcess,
  configDir,
  killAllCli,
  serviceTokenRequest,
  validConfig,
  withChanges,
} from './support.js';
import { webAuthorizeUrl } from './web-sign-in.js';

/**
 * A realm written through the admin API under one cookie_secret, read by a server with another:
 * its client secrets do not open. Named, never a 500 nor a stack, never a secret shown.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const WRITER_KEY = 'writer-cookie-secret-0123456789abcdef';
const READER_KEY = 'reader-cookie-secret-0123456789abcdef';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const SECRET_TEXTS = [
  ...Object.values(SECRETS),
  WRITER_KEY,
  READER_KEY,
  'alice-password',
  BOB_PASSWORD_HASH,
];
const UNREADABLE =
  /realm "shop" cannot be served: the client secrets of "service", "api", "web" do not open with this server's key\. Likely cause: cookie_secret differs from the one the realm was written with\. Fix: restore the cookie_secret the realm was written with, or PUT the realm again through the admin API \(PUT \/admin\/realms\/shop\) with its client secrets\./;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A server, what it told the operator and what it reported as unexpected. */
function start(changes: Record<string, unknown>, store: MemoryStore) {
  const log: string[] = [];
  const reported: unknown[] = [];
  const server = buildServer(parseServerConfig(withChanges(validConfig(), changes)), {
    store,
    eventLog: (line) => log.push(line),
    report: (error) => reported.push(error),
  });
  apps.push(server.app);
  return { server, log, reported };
}

/** The demo realm of validConfig() as `shop`, written through the admin API. */
const shop = () => ({ ...(validConfig().realms[0] as Record<string, unknown>), name: 'shop' });

function admin(server: Server, method: 'GET' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  const request: InjectOptions = { method, url: `/admin${url}`, headers: ADMIN };
  if (body !== undefined) {
    request.headers = { ...ADMIN, 'content-type': 'application/json' };
    request.payload = JSON.stringify(body);
  }
  return server.app.inject(request);
}

const discovery = (server: Server) =>
  server.app.inject({ url: '/oauth/shop/.well-known/openid-configuration' });

const machineToken = (server: Server) => server.app.inject(serviceTokenRequest('shop'));

function expectNoSecret(text: string): void {
  for (const secret of SECRET_TEXTS) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/v1\.[\w-]+\.[\w-]+/);
}

/** `shop` written by a server keyed with WRITER_KEY, and a server keyed with READER_KEY. */
async function writtenWithAnotherKey() {
  const store = new MemoryStore();
  const writer = start({ cookie_secret: WRITER_KEY }, store);
  expect((await admin(writer.server, 'PUT', '/realms/shop', shop())).statusCode).toBe(201);
  return { store, writer, reader: start({ cookie_secret: READER_KEY }, store) };
}

describe('requests to a realm whose secrets do not open', () => {
  it('answer 503 temporarily_unavailable, told once per revision in one line, never reported', async () => {
    const { writer, reader } = await writtenWithAnotherKey();
    for (const response of [
      await discovery(reader.server),
      await machineToken(reader.server),
      await discovery(reader.server),
    ]) {
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'this realm is temporarily unavailable',
      });
    }
    expect(reader.log).toHaveLength(1);
    expect(reader.log[0]).toMatch(new RegExp(`^\\[gatehouse\\] ${UNREADABLE.source}\\n$`));
    expect(reader.reported).toEqual([]);

    // Written again (a new revision), still with the other key: told again, once.
    expect((await admin(writer.server, 'PUT', '/realms/shop', shop())).statusCode).toBe(200);
    expect((await discovery(reader.server)).statusCode).toBe(503);
    expect((await discovery(reader.server)).statusCode).toBe(503);
    expect(reader.log).toHaveLength(2);
    expectNoSecret(reader.log.join(''));
    // The writer's key still opens them.
    expect((await machineToken(writer.server)).statusCode).toBe(200);
  });

  it('answer the login page with a 503 page', async () => {
    const { writer, reader } = await writtenWithAnotherKey();
    const authorize = await writer.server.app.inject({
      url: webAuthorizeUrl(BASE_URL, {}, 'shop').slice(BASE_URL.length),
    });
    const interaction = new URL(authorize.headers.location as string).pathname;
    const page = await reader.server.app.inject({ url: interaction });
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(reader.reported).toEqual([]);
  });
});

describe('the admin API on a realm whose secrets do not open', () => {
  it('shows the realm and its clients, without any secret', async () => {
    const { reader } = await writtenWithAnotherKey();
    const realm = await admin(reader.server, 'GET', '/realms/shop');
    expect(realm.statusCode).toBe(200);
    expect(realm.json()).toMatchObject({ name: 'shop', scopes: ['openid', 'profile', 'api:read'] });
    const client = await admin(reader.server, 'GET', '/realms/shop/clients/web');
    expect(client.statusCode).toBe(200);
    expect(client.json()).toMatchObject({ client_id: 'web' });
    for (const response of [realm, client]) {
      expectNoSecret(response.body);
      expect(response.body).not.toMatch(/"(client_secret|password|password_hash)"/);
    }
  });

  it.each([
    ['PUT', '/realms/shop/clients/mobile', { token_endpoint_auth_method: 'none', scope: 'openid' }],
    ['DELETE', '/realms/shop/clients/api', undefined],
    ['PUT', '/realms/shop', 'as GET shows it'],
  ] as const)(
    'answers 409 secrets_unreadable to %s %s, which needs the stored secrets',
    async (method, url, body) => {
      const { store, reader } = await writtenWithAnotherKey();
      const before = await store.get('admin_realm', 'shop');
      const shown = (await admin(reader.server, 'GET', '/realms/shop')).json();
      const response = await admin(
        reader.server,
        method,
        url,
        body === 'as GET shows it' ? shown : body,
      );
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'secrets_unreadable',
        // The same words as the report, with ' for ": an error_description never carries ".
        error_description: expect.stringMatching(
          new RegExp(`^${UNREADABLE.source.replaceAll('"', "'")}$`),
        ),
      });
      expectNoSecret(response.body);
      expect(await store.get('admin_realm', 'shop')).toEqual(before);
      expect(reader.reported).toEqual([]);
    },
  );

  it('answers 409 secrets_unreadable to DELETE of the realm: what was signed in to it could not be ended', async () => {
    const { store, reader } = await writtenWithAnotherKey();
    const before = await store.get('admin_realm', 'shop');
    const response = await admin(reader.server, 'DELETE', '/realms/shop');
    expect([response.statusCode, response.json().error]).toEqual([409, 'secrets_unreadable']);
    expect(await store.get('admin_realm', 'shop')).toEqual(before);
    expect(reader.reported).toEqual([]);
  });

  it('takes the realm again with its client secrets, sealed under its own key: the way back', async () => {
    const { writer, reader } = await writtenWithAnotherKey();
    expect((await discovery(reader.server)).statusCode).toBe(503);
    const rewritten = await admin(reader.server, 'PUT', '/realms/shop', shop());
    expect(rewritten.statusCode, rewritten.body).toBe(200);
    expectNoSecret(rewritten.body);
    expect((await discovery(reader.server)).statusCode).toBe(200);
    expect((await machineToken(reader.server)).statusCode).toBe(200);
    expect(await reader.server.unreadableRealms()).toEqual([]);
    // Now the writer's key is the other one.
    expect((await writer.server.unreadableRealms()).map((problem) => problem.realm)).toEqual([
      'shop',
    ]);
  });
});

const redisUrl = await serviceUrl(REDIS);
const dir = configDir();
const keyPrefixes: string[] = [];
afterAll(async () => {
  killAllCli();
  dir.remove();
  if (redisUrl) for (const prefix of keyPrefixes) await deleteRedisKeys(redisUrl, prefix);
});

describe.skipIf(!redisUrl)('gatehouse serve with a realm whose secrets do not open', () => {
  it('warns in one paragraph naming the realm, its clients and the fixes, and serves the rest', async () => {
    const keyPrefix = uniquePrefix('secrets');
    keyPrefixes.push(keyPrefix);
    const config = (cookieSecret: string): ServerConfigInput =>
      withChanges(validConfig(), {
        store: redisUrl,
        store_options: { key_prefix: keyPrefix },
        cookie_secret: cookieSecret,
      }) as ServerConfigInput;
    const writer = buildServer(parseServerConfig(config(WRITER_KEY)));
    apps.push(writer.app);
    expect((await admin(writer, 'PUT', '/realms/shop', shop())).statusCode).toBe(201);

    // A new cookie_secret: the server starts, so the realm can be put again under it.
    const file = dir.write('reader.json', config(READER_KEY));
    const cli = new CliProcess(['serve', '--config', file, '--port', '0']);
    const origin = await cli.origin();
    // Told once the server listens: checking every realm of a large store takes minutes.
    await cli.waitFor(/^warning: /m, 'stderr');
    const [paragraph] = cli.stderr.split('\n');
    expect(paragraph?.startsWith(`warning: ${file}: `)).toBe(true);
    expect(paragraph).toMatch(UNREADABLE);
    expectNoSecret(cli.stderr);
    const discoveryOf = (realm: string) =>
      fetch(`${origin}/oauth/${realm}/.well-known/openid-configuration`);
    expect((await discoveryOf('demo')).status).toBe(200);
    expect((await discoveryOf('shop')).status).toBe(503);
    const put = await fetch(`${origin}/admin/realms/shop`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(shop()),
    });
    expect(put.status).toBe(200);
    expect((await discoveryOf('shop')).status).toBe(200);
    cli.kill();
  });
});
