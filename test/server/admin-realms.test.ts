import { MemoryStore } from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import {
  buildServer,
  hashPassword,
  parseServerConfig,
  type Server,
  type ServerOptions,
} from '@gatehouse-oidc/server';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import {
  ADMIN_TOKEN,
  BOB_PASSWORD_HASH,
  serviceTokenRequest,
  validConfig,
  withChanges,
} from './support.js';
import { aliceSignsIn, codeExchange, refreshRequest, WEB_TOKEN_HEADERS } from './web-sign-in.js';

/** The admin API's realms and clients (docs/standalone-server.md), row by row of the contract. */

const BASE_URL = 'http://127.0.0.1:3000';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** Alice's password at the cheapest cost, so that most PUTs need no scrypt derivation. */
const ALICE_PASSWORD_HASH = await hashPassword('alice-password', { N: 2 ** 14 });
const SECRET_TEXTS = [
  ...Object.values(SECRETS),
  'alice-password',
  ALICE_PASSWORD_HASH,
  BOB_PASSWORD_HASH,
];

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function start(changes: Record<string, unknown> = {}, options: ServerOptions = {}): Server {
  const server = buildServer(parseServerConfig(withChanges(validConfig(), changes)), options);
  apps.push(server.app);
  return server;
}

/**
 * The demo realm of validConfig() under another name: clients, users, secrets and all; Alice's
 * password hashed unless `plainPassword`.
 */
function realmObject(name = 'shop', { plainPassword = false } = {}): Record<string, unknown> {
  const realm = { ...(validConfig().realms[0] as Record<string, unknown>), name };
  if (plainPassword) return realm;
  return withChanges(realm, {
    'users.0.password': undefined,
    'users.0.password_hash': ALICE_PASSWORD_HASH,
  });
}

/** realmObject() with refresh tokens for `web`. */
const withRefreshTokens = () =>
  withChanges(realmObject(), { 'clients.2.grant_types': ['authorization_code', 'refresh_token'] });

type Method = 'GET' | 'PUT' | 'DELETE' | 'POST';

function admin(server: Server, method: Method, url: string, body?: unknown, headers = ADMIN) {
  const request: InjectOptions = { method, url: `/admin${url}`, headers };
  if (body !== undefined) {
    request.headers = { ...headers, 'content-type': 'application/json' };
    request.payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return server.app.inject(request);
}

/** No secret of the test config, and no key that would hold one, anywhere in the answer. */
function expectNoSecret(response: LightMyRequestResponse): void {
  for (const secret of SECRET_TEXTS) expect(response.body).not.toContain(secret);
  expect(response.body).not.toMatch(/"(client_secret|password|password_hash)"/);
}

const discovery = (server: Server, realm: string) =>
  server.app.inject({ url: `/oauth/${realm}/.well-known/openid-configuration` });

/** A token of `service` for the API resource, which `api` may introspect. */
async function machineToken(server: Server, realm: string): Promise<string> {
  const response = await server.app.inject({
    method: 'POST',
    url: `/oauth/${realm}/token`,
    headers: FORM_HEADERS,
    payload: form({
      grant_type: 'client_credentials',
      client_id: 'service',
      client_secret: SECRETS.post,
      resource: 'https://api.example.com',
    }),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().access_token;
}

/** The kids of the realm's signing keys in the store, in the order they were made. */
async function storedKids(store: MemoryStore, realm: string): Promise<string[]> {
  const kids: string[] = [];
  for (;;) {
    const key = await store.get<{ kid: string }>('signing_key', `${realm}/${kids.length + 1}`);
    if (!key) return kids;
    kids.push(key.kid);
  }
}

const introspect = (server: Server, realm: string, token: string) =>
  server.app.inject({
    method: 'POST',
    url: `/oauth/${realm}/introspect`,
    headers: { ...FORM_HEADERS, authorization: basicAuthorization('api', SECRETS.api) },
    payload: form({ token }),
  });

const userinfo = (server: Server, realm: string, token: string) =>
  server.app.inject({
    url: `/oauth/${realm}/userinfo`,
    headers: { authorization: `Bearer ${token}` },
  });

const refreshAtWeb = (server: Server, realm: string, refreshToken: string) =>
  server.app.inject({
    method: 'POST',
    url: `/oauth/${realm}/token`,
    headers: WEB_TOKEN_HEADERS,
    payload: refreshRequest(refreshToken),
  });

/** Alice signs in to `web` of the realm through the pages; web's tokens. */
async function webTokens(server: Server, realm: string) {
  const code = await aliceSignsIn(server.app, BASE_URL, realm);
  const response = await server.app.inject({
    method: 'POST',
    url: `/oauth/${realm}/token`,
    headers: WEB_TOKEN_HEADERS,
    payload: codeExchange(code),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { access_token: string; refresh_token: string };
}

/** Alice's grant to `web` of shop is gone: its tokens refused, and none listed for her. */
async function expectWebGrantGone(
  server: Server,
  { access_token, refresh_token }: { access_token: string; refresh_token: string },
) {
  const refresh = await refreshAtWeb(server, 'shop', refresh_token);
  expect([refresh.statusCode, refresh.json().error]).toEqual([400, 'invalid_grant']);
  expect((await userinfo(server, 'shop', access_token)).statusCode).toBe(401);
  const grants = await admin(server, 'GET', '/realms/shop/users/alice/grants');
  expect(grants.json()).toEqual({ grants: [] });
}

describe('realms of the admin API', () => {
  it('lists every realm, from the file and from the API', async () => {
    const server = start();
    const before = await admin(server, 'GET', '/realms');
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ realms: ['demo'] });
    expect((await admin(server, 'PUT', '/realms/shop', realmObject())).statusCode).toBe(201);
    expect((await admin(server, 'PUT', '/realms/attic', realmObject('attic'))).statusCode).toBe(
      201,
    );
    expect((await admin(server, 'GET', '/realms')).json()).toEqual({
      realms: ['demo', 'attic', 'shop'],
    });
  });

  it('lists the realms in pages when asked for a limit, each page naming the cursor of the next', async () => {
    const server = start();
    for (const name of ['shop', 'attic', 'cellar']) {
      expect((await admin(server, 'PUT', `/realms/${name}`, realmObject(name))).statusCode).toBe(
        201,
      );
    }
    const first = await admin(server, 'GET', '/realms?limit=2');
    expect([first.statusCode, first.headers['cache-control']]).toEqual([200, 'no-store']);
    expect(first.json()).toEqual({ realms: ['demo', 'attic'], next_cursor: 'attic' });
    const last = await admin(server, 'GET', '/realms?limit=2&cursor=attic');
    expect(last.json()).toEqual({ realms: ['cellar', 'shop'] });
    const cursorOnly = await admin(server, 'GET', '/realms?cursor=demo');
    expect(cursorOnly.json()).toEqual({ realms: ['attic', 'cellar', 'shop'] });
    for (const limit of ['0', '1001', 'ten', '-1', '2.5']) {
      const refused = await admin(server, 'GET', `/realms?limit=${limit}`);
      expect([refused.statusCode, refused.json().error]).toEqual([400, 'invalid_request']);
    }
  });

  it('creates a realm with 201, whose discovery answers at once and whose clients and users work', async () => {
    const server = start();
    expect((await discovery(server, 'shop')).statusCode).toBe(404);
    const created = await admin(server, 'PUT', '/realms/shop', realmObject());
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'shop',
      scopes: ['openid', 'profile', 'api:read'],
    });
    expectNoSecret(created);
    const metadata = await discovery(server, 'shop');
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json().issuer).toBe(`${BASE_URL}/oauth/shop`);
    const token = await machineToken(server, 'shop');
    expect((await introspect(server, 'shop', token)).json()).toMatchObject({ active: true });
    const { access_token } = await webTokens(server, 'shop');
    expect((await userinfo(server, 'shop', access_token)).json()).toMatchObject({
      sub: 'alice',
      name: 'Alice',
    });
  });

  it('makes a created realm’s signing key as it is written: its first token is signed with it', async () => {
    const store = new MemoryStore();
    const server = start({}, { store });
    expect((await admin(server, 'PUT', '/realms/shop', realmObject())).statusCode).toBe(201);
    const made = await storedKids(store, 'shop');
    expect(made).toHaveLength(1);
    expect(decodeProtectedHeader(await machineToken(server, 'shop')).kid).toBe(made[0]);
    expect((await admin(server, 'PUT', '/realms/shop', realmObject())).statusCode).toBe(200);
    expect(await storedKids(store, 'shop')).toEqual(made);
  });

  it('creates a realm all the same when its key cannot be written, and reports it: its first token makes it', async () => {
    const store = new MemoryStore();
    const add = store.add.bind(store);
    let refused = 0;
    vi.spyOn(store, 'add').mockImplementation(async (namespace, id, value, options) => {
      if (namespace === 'signing_key' && refused++ === 0) throw new Error('store went away');
      return add(namespace, id, value, options);
    });
    const report = vi.fn();
    const server = start({}, { store, report });
    expect((await admin(server, 'PUT', '/realms/shop', realmObject())).statusCode).toBe(201);
    expect([refused, await storedKids(store, 'shop')]).toEqual([1, []]);
    expect(report).toHaveBeenCalledWith(new Error('store went away'), {
      method: 'PUT',
      path: '/admin/realms/shop',
    });
    const kid = decodeProtectedHeader(await machineToken(server, 'shop')).kid;
    expect(await storedKids(store, 'shop')).toEqual([kid]);
  });

  it('replaces a realm with 200, and answers GET with the realm object without any secret', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const replaced = await admin(
      server,
      'PUT',
      '/realms/shop',
      withChanges(realmObject(), { access_token_ttl: 120 }),
    );
    expect(replaced.statusCode).toBe(200);
    const read = await admin(server, 'GET', '/realms/shop');
    expect(read.statusCode).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expectNoSecret(read);
    const realm = read.json();
    expect(realm).toMatchObject({ name: 'shop', access_token_ttl: 120 });
    expect(realm.clients.map((client: { client_id: string }) => client.client_id)).toEqual([
      'service',
      'api',
      'web',
    ]);
    expect(realm.users).toEqual([
      { sub: 'alice', username: 'alice', claims: { name: 'Alice' } },
      { sub: 'bob', username: 'bob', claims: {} },
    ]);
  });

  it('keeps the secrets a PUT leaves out, so what GET shows can be changed and put back', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const shown = (await admin(server, 'GET', '/realms/shop')).json();
    const back = await admin(server, 'PUT', '/realms/shop', { ...shown, id_token_ttl: 600 });
    expect(back.statusCode, back.body).toBe(200);
    expect(await machineToken(server, 'shop')).toEqual(expect.any(String));
    await webTokens(server, 'shop');
  });

  it('keeps client secrets encrypted and passwords hashed in the store', async () => {
    const store = new MemoryStore();
    const server = start({}, { store });
    await admin(server, 'PUT', '/realms/shop', realmObject('shop', { plainPassword: true }));
    const stored = JSON.stringify(await store.get('admin_realm', 'shop'));
    for (const secret of [...Object.values(SECRETS), 'alice-password']) {
      expect(stored).not.toContain(secret);
    }
    expect(stored).toMatch(/"password_hash":"scrypt\$131072\$/);
    // Alice signs in with the password she was given.
    await webTokens(server, 'shop');
  });

  it('deletes a realm with 204: its discovery answers 404 and none of its tokens work', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const token = await machineToken(server, 'shop');
    const { access_token, refresh_token } = await webTokens(server, 'shop');
    const deleted = await admin(server, 'DELETE', '/realms/shop');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await discovery(server, 'shop')).statusCode).toBe(404);
    expect((await introspect(server, 'shop', token)).statusCode).toBe(404);
    expect((await userinfo(server, 'shop', access_token)).statusCode).toBe(404);
    const refresh = await refreshAtWeb(server, 'shop', refresh_token);
    expect(refresh.statusCode).toBe(404);
    expect((await admin(server, 'GET', '/realms')).json()).toEqual({ realms: ['demo'] });
    expect((await admin(server, 'GET', '/realms/shop')).statusCode).toBe(404);
  });

  it('deletes a realm with its sign-ins: created again, it has none of the old sessions, grants and tokens', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', withRefreshTokens());
    const { access_token, refresh_token } = await webTokens(server, 'shop');
    expect(refresh_token).toEqual(expect.any(String));
    expect((await admin(server, 'DELETE', '/realms/shop')).statusCode).toBe(204);
    expect((await admin(server, 'PUT', '/realms/shop', withRefreshTokens())).statusCode).toBe(201);

    await expectWebGrantGone(server, { access_token, refresh_token });
    const sessions = await admin(server, 'GET', '/realms/shop/users/alice/sessions');
    expect(sessions.json()).toEqual({ sessions: [] });
  });
});

describe('clients of the admin API', () => {
  const client = {
    client_id: 'mobile',
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    redirect_uris: ['com.example.app:/cb'],
    scope: 'openid',
  };

  it('creates a client with 201, replaces it with 200 and shows it without its secret', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const created = await admin(server, 'PUT', '/realms/shop/clients/mobile', client);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject(client);
    const replaced = await admin(server, 'PUT', '/realms/shop/clients/mobile', {
      ...client,
      client_name: 'Mobile app',
    });
    expect(replaced.statusCode).toBe(200);
    expect((await admin(server, 'GET', '/realms/shop/clients/mobile')).json()).toMatchObject({
      client_id: 'mobile',
      client_name: 'Mobile app',
    });
    const withSecret = await admin(server, 'PUT', '/realms/shop/clients/service', {
      client_id: 'service',
      client_secret: SECRETS.other,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials'],
      scope: 'api:read',
    });
    expect(withSecret.statusCode).toBe(200);
    const read = await admin(server, 'GET', '/realms/shop/clients/service');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ client_id: 'service', scope: 'api:read' });
    expect(read.body).not.toContain(SECRETS.other);
    expectNoSecret(read);
    // The new secret is the one that works now.
    const refused = await server.app.inject(serviceTokenRequest('shop'));
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.json().error).toBe('invalid_client');
  });

  it('deletes a client with 204: its tokens stop working (introspection, userinfo, refresh)', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const token = await machineToken(server, 'shop');
    const { access_token, refresh_token } = await webTokens(server, 'shop');
    expect((await admin(server, 'DELETE', '/realms/shop/clients/service')).statusCode).toBe(204);
    expect((await admin(server, 'DELETE', '/realms/shop/clients/web')).statusCode).toBe(204);
    const introspection = await introspect(server, 'shop', token);
    expect(introspection.json()).toEqual({ active: false });
    expect((await userinfo(server, 'shop', access_token)).statusCode).toBe(401);
    const refresh = await refreshAtWeb(server, 'shop', refresh_token);
    expect(refresh.statusCode).toBe(401);
    expect(refresh.json().error).toBe('invalid_client');
    expect((await admin(server, 'GET', '/realms/shop/clients/web')).statusCode).toBe(404);
  });

  it('deletes a client with its grants: created again, it has none of the old consents and tokens', async () => {
    const server = start();
    const shop = withRefreshTokens();
    await admin(server, 'PUT', '/realms/shop', shop);
    const web = (shop.clients as { client_id: string }[]).find((each) => each.client_id === 'web');
    const { access_token, refresh_token } = await webTokens(server, 'shop');
    expect(refresh_token).toEqual(expect.any(String));
    expect((await admin(server, 'DELETE', '/realms/shop/clients/web')).statusCode).toBe(204);
    expect((await admin(server, 'PUT', '/realms/shop/clients/web', web)).statusCode).toBe(201);

    await expectWebGrantGone(server, { access_token, refresh_token });
  });

  it('never revives the client_credentials tokens of a client or realm deleted and created again', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const service = (realmObject().clients as { client_id: string }[])[0];
    const first = await machineToken(server, 'shop');
    expect((await admin(server, 'DELETE', '/realms/shop/clients/service')).statusCode).toBe(204);
    expect((await admin(server, 'PUT', '/realms/shop/clients/service', service)).statusCode).toBe(
      201,
    );
    expect((await introspect(server, 'shop', first)).json()).toEqual({ active: false });

    const second = await machineToken(server, 'shop');
    expect((await introspect(server, 'shop', second)).json()).toMatchObject({ active: true });
    expect((await admin(server, 'DELETE', '/realms/shop')).statusCode).toBe(204);
    expect((await admin(server, 'PUT', '/realms/shop', realmObject())).statusCode).toBe(201);
    expect((await introspect(server, 'shop', second)).json()).toEqual({ active: false });
  });

  it('keeps the tokens of a client whose secret a PUT replaces; the old secret stops at once', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const token = await machineToken(server, 'shop');
    const service = (realmObject().clients as Record<string, unknown>[])[0];
    const put = { ...service, client_secret: SECRETS.other };
    expect((await admin(server, 'PUT', '/realms/shop/clients/service', put)).statusCode).toBe(200);
    expect((await introspect(server, 'shop', token)).json()).toMatchObject({ active: true });
    expect((await server.app.inject(serviceTokenRequest('shop'))).json().error).toBe(
      'invalid_client',
    );
    expect((await server.app.inject(serviceTokenRequest('shop', SECRETS.other))).statusCode).toBe(
      200,
    );
  });

  it.each(['constructor', '__proto__', 'toString'])(
    'takes a client whose client_id is %s like any other',
    async (clientId) => {
      const server = start();
      await admin(server, 'PUT', '/realms/shop', realmObject());
      const created = await admin(server, 'PUT', `/realms/shop/clients/${clientId}`, {
        ...client,
        client_id: clientId,
      });
      expect(created.statusCode, created.body).toBe(201);
      expect((await discovery(server, 'shop')).statusCode).toBe(200);
      expect((await machineToken(server, 'shop')).length).toBeGreaterThan(0);
    },
  );

  it('still lists and ends the sessions and grants of a user removed from the realm', async () => {
    const server = start();
    const shop = withRefreshTokens();
    await admin(server, 'PUT', '/realms/shop', shop);
    await webTokens(server, 'shop');
    const users = (shop.users as { sub: string }[]).filter((user) => user.sub !== 'alice');
    expect((await admin(server, 'PUT', '/realms/shop', { ...shop, users })).statusCode).toBe(200);

    const sessions = await admin(server, 'GET', '/realms/shop/users/alice/sessions');
    expect([sessions.statusCode, sessions.json().sessions.length]).toEqual([200, 1]);
    const grants = await admin(server, 'GET', '/realms/shop/users/alice/grants');
    expect(grants.json().grants).toMatchObject([{ client_id: 'web' }]);
    expect((await admin(server, 'DELETE', '/realms/shop/users/alice/sessions')).statusCode).toBe(
      204,
    );
    expect((await admin(server, 'DELETE', '/realms/shop/users/alice/grants/web')).statusCode).toBe(
      204,
    );
    // Nothing stored for alice now, and no account: she is unknown again.
    for (const listed of ['sessions', 'grants']) {
      const gone = await admin(server, 'GET', `/realms/shop/users/alice/${listed}`);
      expect([gone.statusCode, gone.json()]).toEqual([404, { error: 'not_found' }]);
    }
  });

  it('shows a client of the config file without its secret', async () => {
    const read = await admin(start(), 'GET', '/realms/demo/clients/web');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      client_id: 'web',
      redirect_uris: ['https://app.example.com/cb'],
    });
    expectNoSecret(read);
  });
});

describe('POST /admin/realms/{realm}/clients/{client_id}/secret', () => {
  const DAY = 86_400;

  /** A server on a fake clock with the shop realm, and how `service` fares with a secret. */
  async function shop() {
    const clock = fakeClock();
    const events: string[] = [];
    const server = start({}, { now: clock.now, eventLog: (line) => events.push(line) });
    await admin(server, 'PUT', '/realms/shop', withRefreshTokens());
    const serviceWith = async (secret: string) =>
      (await server.app.inject(serviceTokenRequest('shop', secret))).statusCode;
    const rotate = (body?: unknown, realm = 'shop', clientId = 'service') =>
      admin(server, 'POST', `/realms/${realm}/clients/${clientId}/secret`, body);
    return { server, clock, events, serviceWith, rotate };
  }

  it('answers a new 256-bit secret; the previous one works for a day by default, then stops', async () => {
    const { server, clock, events, serviceWith, rotate } = await shop();
    const token = await machineToken(server, 'shop');
    const rotated = await rotate();
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const { client_secret: secret, previous_secret_expires_at: expiresAt } = rotated.json();
    expect(Object.keys(rotated.json()).sort()).toEqual([
      'client_secret',
      'previous_secret_expires_at',
    ]);
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(expiresAt).toBe(Math.floor(clock.now() / 1000) + DAY);
    expect([await serviceWith(SECRETS.post), await serviceWith(secret)]).toEqual([200, 200]);
    // Tokens already issued keep working.
    expect((await introspect(server, 'shop', token)).json()).toMatchObject({ active: true });

    const read = await admin(server, 'GET', '/realms/shop/clients/service');
    expect(read.json()).toMatchObject({ previous_client_secret_expires_at: expiresAt });
    for (const shown of [read, await admin(server, 'GET', '/realms/shop')]) {
      expectNoSecret(shown);
      expect(shown.body).not.toContain(secret);
    }
    // A PUT of what GET shows keeps both secrets.
    const { client_id, ...kept } = read.json();
    await admin(server, 'PUT', '/realms/shop/clients/service', kept);
    expect([await serviceWith(SECRETS.post), await serviceWith(secret)]).toEqual([200, 200]);

    clock.advance(DAY - 1);
    expect(await serviceWith(SECRETS.post)).toBe(200);
    clock.advance(1);
    expect(await serviceWith(SECRETS.post)).toBe(400);
    expect(await serviceWith(secret)).toBe(200);
    for (const line of events) expect(line).not.toContain(secret);
  });

  it('ends the previous secret at once with overlap_seconds 0', async () => {
    const { clock, serviceWith, rotate } = await shop();
    const rotated = await rotate({ overlap_seconds: 0 });
    expect(rotated.json().previous_secret_expires_at).toBe(Math.floor(clock.now() / 1000));
    expect(await serviceWith(SECRETS.post)).toBe(400);
    expect(await serviceWith(rotated.json().client_secret)).toBe(200);
  });

  it('with revoke_tokens stops every access and refresh token of the client at once', async () => {
    const { server, clock, rotate } = await shop();
    const web = await webTokens(server, 'shop');
    const machine = await machineToken(server, 'shop');
    clock.advance(1);
    const webRotated = await rotate({ revoke_tokens: true, overlap_seconds: 60 }, 'shop', 'web');
    expect(webRotated.statusCode).toBe(200);
    expect((await rotate({ revoke_tokens: true })).statusCode).toBe(200);
    expect((await introspect(server, 'shop', machine)).json()).toEqual({ active: false });
    expect((await userinfo(server, 'shop', web.access_token)).statusCode).toBe(401);
    // web's previous secret still authenticates during the overlap, but its refresh token is gone.
    expect((await refreshAtWeb(server, 'shop', web.refresh_token)).json().error).toBe(
      'invalid_grant',
    );
    // The grant (consent) is kept; new tokens work, with the previous secret during the overlap too.
    const grants = await admin(server, 'GET', '/realms/shop/users/alice/grants');
    expect(grants.json().grants).toHaveLength(1);
    const fresh = await machineToken(server, 'shop');
    expect((await introspect(server, 'shop', fresh)).json()).toMatchObject({ active: true });
  });

  it('with revoke_tokens also revokes what an instance that had not read the rotation issued with the old secret', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    const shared = { cookie_secret: 'rotation-cookie-secret-0123456789abcdef' };
    const [a, b] = [
      start(shared, { store, now: clock.now }),
      start(shared, { store, now: clock.now }),
    ];
    await admin(a, 'PUT', '/realms/shop', realmObject());
    expect((await b.app.inject(serviceTokenRequest('shop'))).statusCode).toBe(200);

    const rotation = admin(a, 'POST', '/realms/shop/clients/service/secret', {
      overlap_seconds: 0,
      revoke_tokens: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    clock.advance(1);
    // b still serves the realm as it read it a second ago: the old secret works there.
    const late = await b.app.inject(serviceTokenRequest('shop'));
    expect(late.statusCode).toBe(200);
    clock.advance(1);
    const rotated = await rotation;
    expect(rotated.statusCode).toBe(200);
    const answer = await a.app.inject({
      method: 'POST',
      url: '/oauth/shop/introspect',
      headers: FORM_HEADERS,
      payload: form({
        token: late.json().access_token,
        client_id: 'service',
        client_secret: rotated.json().client_secret,
      }),
    });
    expect(answer.json()).toEqual({ active: false });
  });

  it('answers 409 for a realm of the config file, 404 for an unknown realm or client', async () => {
    const { rotate } = await shop();
    const file = await rotate({}, 'demo');
    expect([file.statusCode, file.json().error]).toEqual([409, 'config_managed']);
    for (const [realm, clientId] of [
      ['nowhere', 'service'],
      ['shop', 'nobody'],
    ]) {
      const unknown = await rotate({}, realm, clientId);
      expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'not_found' }]);
    }
  });

  it('answers 400 with every problem of the body and its JSON path, and changes nothing', async () => {
    const { rotate, serviceWith } = await shop();
    const response = await rotate({ overlap_seconds: -1, revoke_tokens: 'yes', colour: 'blue' });
    expect(response.statusCode).toBe(400);
    const paths = response.json().issues.map((issue: { path: string }) => issue.path);
    expect(paths.sort()).toEqual(['', 'overlap_seconds', 'revoke_tokens']);
    expect((await rotate('not json')).statusCode).toBe(400);
    expect((await rotate({ overlap_seconds: 1.5 })).json().issues).toEqual([
      { path: 'overlap_seconds', message: expect.any(String) },
    ]);
    expect(await serviceWith(SECRETS.post)).toBe(200);
  });
});

describe('the realms of the config file', () => {
  it('are shown without secrets', async () => {
    const read = await admin(start(), 'GET', '/realms/demo');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ name: 'demo' });
    expectNoSecret(read);
  });

  it.each([
    ['PUT', '/realms/demo', realmObject('demo')],
    ['DELETE', '/realms/demo', undefined],
    ['PUT', '/realms/demo/clients/web', { client_id: 'web', scope: 'openid' }],
    ['PUT', '/realms/demo/clients/new', { client_id: 'new', scope: 'openid' }],
    ['DELETE', '/realms/demo/clients/web', undefined],
  ] as const)(
    'change only with the file: %s %s answers 409 config_managed',
    async (method, url, body) => {
      const server = start();
      const response = await admin(server, method, url, body);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ error: 'config_managed' });
      expect(await machineToken(server, 'demo')).toEqual(expect.any(String));
    },
  );
});

describe('refusals', () => {
  const rows: Array<[Method, string]> = [
    ['GET', '/realms'],
    ['PUT', '/realms/shop'],
    ['GET', '/realms/shop'],
    ['DELETE', '/realms/shop'],
    ['PUT', '/realms/shop/clients/mobile'],
    ['GET', '/realms/shop/clients/mobile'],
    ['DELETE', '/realms/shop/clients/mobile'],
  ];

  it.each(rows)(
    '%s %s answers 401 without the admin token, and changes nothing',
    async (method, url) => {
      const server = start();
      await admin(server, 'PUT', '/realms/shop', realmObject());
      for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}x` }]) {
        const body = method === 'PUT' ? realmObject() : undefined;
        const response = await admin(server, method, url, body, headers as typeof ADMIN);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ error: 'invalid_token' });
      }
      expect((await admin(server, 'GET', '/realms')).json()).toEqual({ realms: ['demo', 'shop'] });
    },
  );

  it.each([
    ['GET', '/realms/nowhere'],
    ['DELETE', '/realms/nowhere'],
    ['GET', '/realms/nowhere/clients/web'],
    ['PUT', '/realms/nowhere/clients/web'],
    ['DELETE', '/realms/nowhere/clients/web'],
    ['GET', '/realms/shop/clients/nobody'],
    ['DELETE', '/realms/shop/clients/nobody'],
    ['GET', '/realms/demo/clients/nobody'],
  ] as const)('%s %s answers 404 not_found', async (method, url) => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const body =
      method === 'PUT' ? { scope: 'openid', redirect_uris: ['https://a.example/cb'] } : undefined;
    const response = await admin(server, method, url, body);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found' });
  });

  it('answers 400 with every problem of a realm and its JSON path, as gatehouse check prints them', async () => {
    const server = start();
    const body = withChanges(realmObject('shop', { plainPassword: true }), {
      colour: 'blue',
      'clients.2.redirect_uris': ['not a url'],
      'users.0.password': 'short',
    });
    const response = await admin(server, 'PUT', '/realms/shop', body);
    expect(response.statusCode).toBe(400);
    const answer = response.json();
    expect(answer.error).toBe('invalid_request');
    const paths = answer.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining(['', 'clients[2].redirect_uris[0]', 'users[0].password']),
    );
    expect(answer.error_description).toContain('clients[2].redirect_uris[0]: ');
    expect(answer.error_description).toContain('users[0].password: must be at least 8 characters');
    expectNoSecret(response);
    expect((await discovery(server, 'shop')).statusCode).toBe(404);
  });

  it('answers 400 with the problems of every stage at once: shape, cross-field rules and server checks', async () => {
    // Without cookie_secret, client secrets sealed for a shared store could not be read back.
    const server = start({ store: 'redis://127.0.0.1:1' }, { store: new MemoryStore() });
    const body = withChanges(realmObject(), {
      'clients.0.scope': 'api:write',
      'clients.2.redirect_uris': ['javascript:alert(1)', 'http://app.example.com/cb'],
    });
    const response = await admin(server, 'PUT', '/realms/shop', body);
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual([
      { path: 'clients[2].redirect_uris[0]', message: expect.stringContaining('javascript:') },
      { path: 'clients[0].scope', message: 'names unknown scope "api:write"' },
      { path: 'clients[2].redirect_uris[1]', message: expect.stringContaining('must be https') },
      { path: 'clients[0].client_secret', message: expect.stringContaining('cannot be kept') },
      { path: 'clients[1].client_secret', message: expect.stringContaining('cannot be kept') },
      // The rest of clients[2] is checked once its refused redirect URI is fixed.
    ]);
  });

  it.each([
    ['a realm', '/realms/shop', (deep: string) => `{"users":[{"claims":{"x":${deep}}}]}`],
    ['a client', '/realms/shop/clients/web', (deep: string) => `{"jwks":${deep}}`],
  ])('answers 400, never 500, to %s nested thousands of levels deep', async (_name, url, body) => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const response = await admin(server, 'PUT', url, body(deep));
    expect([response.statusCode, response.json().issues]).toEqual([
      400,
      [{ path: '', message: 'nests objects and arrays more than 32 levels deep' }],
    ]);
  });

  it('answers 400 to a fapi2 realm whose clients break the profile, naming each path', async () => {
    const server = start();
    const body = withChanges(realmObject(), { profile: 'fapi2' });
    const response = await admin(server, 'PUT', '/realms/shop', body);
    expect(response.statusCode).toBe(400);
    const paths = response.json().issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'clients[0].token_endpoint_auth_method',
        'clients[0].jwks',
        'clients[2].token_endpoint_auth_method',
      ]),
    );
    expect((await discovery(server, 'shop')).statusCode).toBe(404);
  });

  it('answers 400 for rules across a realm (a client naming an unknown scope)', async () => {
    const body = withChanges(realmObject(), { 'clients.2.scope': 'openid shopping' });
    const response = await admin(start(), 'PUT', '/realms/shop', body);
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual([
      { path: 'clients[2].scope', message: expect.stringContaining('shopping') },
    ]);
  });

  it('answers 400 with paths into the client for an invalid client', async () => {
    const server = start();
    await admin(server, 'PUT', '/realms/shop', realmObject());
    const response = await admin(server, 'PUT', '/realms/shop/clients/mobile', {
      redirect_uris: ['not a url'],
      scope: 'openid',
      token_endpoint_auth_method: 'none',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual([
      { path: 'redirect_uris[0]', message: expect.any(String) },
    ]);
    expect((await admin(server, 'GET', '/realms/shop/clients/mobile')).statusCode).toBe(404);
  });

  it.each([
    ['a body that is not JSON', '{"name":', '', 'is not valid JSON'],
    ['a name other than the URL’s', { ...realmObject('other') }, 'name', 'must be "shop"'],
    ['an array', [], '', 'must be a JSON object'],
  ])('answers 400 for %s', async (_name, body, path, message) => {
    const response = await admin(start(), 'PUT', '/realms/shop', body);
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it('refuses client secrets it could not read back: a shared store without cookie_secret', async () => {
    const server = start({ store: 'redis://127.0.0.1:1' }, { store: new MemoryStore() });
    const response = await admin(server, 'PUT', '/realms/shop', realmObject());
    expect(response.statusCode).toBe(400);
    expect(response.json().issues.map((issue: { path: string }) => issue.path)).toEqual([
      'clients[0].client_secret',
      'clients[1].client_secret',
      'clients[2].client_secret',
    ]);
  });

  it('refuses an initial access token it could not read back: a shared store without cookie_secret', async () => {
    const server = start({ store: 'redis://127.0.0.1:1' }, { store: new MemoryStore() });
    const response = await admin(server, 'PUT', '/realms/shop', {
      name: 'shop',
      registration: { initial_access_token: 'initial-access-token-of-the-shop-realm-0123' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().issues).toEqual([
      {
        path: 'registration.initial_access_token',
        message: expect.stringContaining('cannot be kept: set cookie_secret'),
      },
    ]);
    expect(response.body).not.toContain('initial-access-token-of-the-shop-realm-0123');
  });
});
