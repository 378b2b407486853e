import { MemoryStore, type Store, StoreUnavailableError } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig, type ServerOptions } from '@gatehouse-oidc/server';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { S256_CHALLENGE } from '../integration/browser.js';
import { ADMIN_TOKEN, validConfig, withChanges } from './support.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function start(changes: Record<string, unknown> = {}, options: ServerOptions = {}) {
  const server = buildServer(parseServerConfig(withChanges(validConfig(), changes)), options);
  apps.push(server.app);
  return server;
}

/** A memory store whose ping misbehaves as told. */
function storeWithPing(ping: () => Promise<void>): Store {
  const store = new MemoryStore();
  store.ping = ping;
  return store;
}

const rotate = (realm: string, authorization?: string) => ({
  method: 'POST' as const,
  url: `/admin/realms/${realm}/keys/rotate`,
  headers: authorization === undefined ? {} : { authorization },
});

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok"} when the store answers', async () => {
    const response = await start().app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 when the store ping rejects', async () => {
    const store = storeWithPing(() => Promise.reject(new StoreUnavailableError()));
    const response = await start({}, { store }).app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'unavailable' });
  });

  it('answers 503 when the store ping throws synchronously', async () => {
    const store = storeWithPing(() => {
      throw new Error('socket gone');
    });
    expect((await start({}, { store }).app.inject({ url: '/healthz' })).statusCode).toBe(503);
  });

  it('answers 503 once the timeout passes while the ping hangs', async () => {
    const store = storeWithPing(() => new Promise<void>(() => {}));
    const started = Date.now();
    const response = await start({}, { store, healthTimeoutMs: 50 }).app.inject({
      url: '/healthz',
    });
    expect(response.statusCode).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});

describe('admin API', () => {
  it('rotates a realm key: 204, and the JWKS then publishes both keys of each algorithm', async () => {
    const { app } = start();
    // ES256, the realm's signing_alg, and RS256, which every realm offers for ID tokens.
    expect((await app.inject({ url: '/oauth/demo/jwks' })).json().keys).toHaveLength(2);
    const response = await app.inject(rotate('demo', `Bearer ${ADMIN_TOKEN}`));
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await app.inject({ url: '/oauth/demo/jwks' })).json().keys).toHaveLength(4);
  });

  it.each([
    ['no Authorization header', undefined, 'Bearer'],
    ['a wrong token', `Bearer ${ADMIN_TOKEN}x`, 'Bearer error="invalid_token"'],
    ['a prefix of the token', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, 'Bearer error="invalid_token"'],
    ['the token under another scheme', `Basic ${ADMIN_TOKEN}`, 'Bearer error="invalid_token"'],
  ])('answers 401 to %s and rotates nothing', async (_name, authorization, challenge) => {
    const { app, provider } = start();
    const rotateKeys = vi.spyOn(provider, 'rotateKeys');
    const response = await app.inject(rotate('demo', authorization));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(challenge);
    expect(response.json()).toEqual({ error: 'invalid_token' });
    expect(rotateKeys).not.toHaveBeenCalled();
  });

  it('accepts the scheme name in any case', async () => {
    expect((await start().app.inject(rotate('demo', `bearer ${ADMIN_TOKEN}`))).statusCode).toBe(
      204,
    );
  });

  it('answers 404 for an unknown realm, after checking the token', async () => {
    const { app } = start();
    expect((await app.inject(rotate('nope'))).statusCode).toBe(401);
    const response = await app.inject(rotate('nope', `Bearer ${ADMIN_TOKEN}`));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found' });
  });

  it("answers the store's counters of what it dropped or refused", async () => {
    const { app, store } = start({ limits: { interactions_per_realm: 1 } });
    const authorize = (state: string) =>
      app.inject({
        url: `/oauth/demo/authorize?response_type=code&client_id=web&redirect_uri=https://app.example.com/cb&scope=openid&state=${state}&code_challenge=${S256_CHALLENGE}&code_challenge_method=S256`,
      });
    for (const state of ['one', 'two']) {
      expect((await authorize(state)).headers.location).toMatch(/\/interaction\//);
    }
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const response = await app.inject({ url: '/admin/store', headers: admin });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual(store.metrics());
    expect(response.json()).toMatchObject({ evicted: 1, shed: 0, refused: 0 });
    expect((await app.inject({ url: '/admin/store' })).statusCode).toBe(401);
  });

  it('guards unknown admin paths with the token too', async () => {
    const { app } = start();
    expect((await app.inject({ method: 'GET', url: '/admin/nothing-here' })).statusCode).toBe(401);
    const known = await app.inject({
      method: 'GET',
      url: '/admin/nothing-here',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(known.statusCode).toBe(404);
  });

  it.each([
    [
      new StoreUnavailableError('redis down at 10.0.0.3'),
      503,
      'temporarily_unavailable',
      'the service is temporarily unavailable',
    ],
    [new Error('disk on fire'), 500, 'server_error', 'an unexpected error occurred'],
  ])(
    'reports %s (without the query) to the error hook and answers %i without detail',
    async (failure, status, error, description) => {
      const report = vi.fn();
      const { app, provider } = start({}, { report });
      vi.spyOn(provider, 'rotateKeys').mockRejectedValue(failure);
      const request = rotate('demo', `Bearer ${ADMIN_TOKEN}`);
      const response = await app.inject({ ...request, url: `${request.url}?note=secret` });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual({ error, error_description: description });
      expect(report).toHaveBeenCalledWith(failure, {
        method: 'POST',
        path: '/admin/realms/demo/keys/rotate',
      });
    },
  );

  it("reports to stderr by default: the causes' messages, never the store's password", async () => {
    const store = 'postgres://gatehouse:pa55-w0rd@127.0.0.1:1/idp';
    const { app, provider } = start({ store }, { store: new MemoryStore() });
    const failure = new Error('boom', { cause: new Error(`cannot reach ${store}`) });
    vi.spyOn(provider, 'rotateKeys').mockRejectedValue(failure);
    let text = '';
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      text += String(chunk);
      return true;
    });
    try {
      const response = await app.inject(rotate('demo', `Bearer ${ADMIN_TOKEN}`));
      expect(response.statusCode).toBe(500);
    } finally {
      write.mockRestore();
    }
    expect(text).toMatch(/^\[gatehouse\] POST \/admin\/realms\/demo\/keys\/rotate: Error: boom\n/);
    expect(text).toContain('\n  caused by: Error: cannot reach ***\n');
    expect(text).not.toContain('pa55-w0rd');
  });

  it('ignores a small body and refuses a large one with 413', async () => {
    const { app } = start();
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const small = await app.inject({ ...rotate('demo'), headers, payload: '{}' });
    expect(small.statusCode).toBe(204);
    const large = await app.inject({ ...rotate('demo'), headers, payload: 'x'.repeat(2048) });
    expect([large.statusCode, large.json()]).toEqual([413, { error: 'invalid_request' }]);
  });

  it('is off without an admin_token: /admin/* is not an endpoint', async () => {
    const { app, provider } = start({ admin_token: undefined });
    const rotateKeys = vi.spyOn(provider, 'rotateKeys');
    const response = await app.inject(rotate('demo', `Bearer ${ADMIN_TOKEN}`));
    expect(response.statusCode).toBe(404);
    expect(rotateKeys).not.toHaveBeenCalled();
  });
});

describe('buildServer', () => {
  it('mounts Gatehouse at the root: the issuer is base_url + /oauth/{realm}', async () => {
    const response = await start({ base_url: 'https://id.example.com/' }).app.inject({
      url: '/oauth/demo/.well-known/openid-configuration',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuer: 'https://id.example.com/oauth/demo',
      token_endpoint: 'https://id.example.com/oauth/demo/token',
    });
  });

  it.each([
    ['https://id.example.com', '/.well-known/oauth-authorization-server/oauth/demo'],
    ['https://id.example.com', '/.well-known/openid-configuration/oauth/demo'],
    ['https://id.example.com', '/oauth/demo/.well-known/oauth-authorization-server'],
    ['https://example.com/idp', '/.well-known/oauth-authorization-server/idp/oauth/demo'],
  ])('under %s, answers the realm metadata at %s (RFC 8414)', async (baseUrl, url) => {
    const { app } = start({ base_url: baseUrl });
    const response = await app.inject({ url });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuer: `${baseUrl}/oauth/demo`,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it.each([
    ['/.well-known/oauth-authorization-server/oauth/nope', 'unknown realm'],
    ['/.well-known/openid-configuration/elsewhere/oauth/demo', 'no such endpoint'],
    ['/.well-known/oauth-authorization-server', 'no such endpoint'],
  ])('answers %s with a JSON 404', async (url, description) => {
    const response = await start().app.inject({ url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: 'not_found', error_description: description });
  });

  it('offers RS256 ID tokens in every realm, and publishes an RS256 key once a client uses them', async () => {
    const { app } = start({ 'realms.0.clients.2.id_token_signed_response_alg': 'RS256' });
    const metadata = (
      await app.inject({ url: '/oauth/demo/.well-known/openid-configuration' })
    ).json();
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);
    const keys = (await app.inject({ url: '/oauth/demo/jwks' })).json().keys;
    expect(keys.map((key: { alg: string }) => key.alg)).toEqual(['ES256', 'RS256']);
  });

  it('answers the CORS preflight of a client origin at the token endpoint, never at the admin API', async () => {
    const { app } = start();
    const preflight = (url: string) =>
      app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
    const token = await preflight('/oauth/demo/token');
    expect(token.statusCode).toBe(204);
    expect(token.headers['access-control-allow-origin']).toBe('https://app.example.com');
    for (const url of ['/admin/realms/demo/keys/rotate', '/oauth/demo/introspect']) {
      const refused = await preflight(url);
      expect(refused.statusCode, url).not.toBe(204);
      expect(refused.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });

  it('closes the store when the app closes', async () => {
    const store = new MemoryStore();
    const close = vi.spyOn(store, 'close');
    const { app } = buildServer(parseServerConfig(validConfig()), { store });
    await app.ready();
    await app.close();
    expect(close).toHaveBeenCalledOnce();
  });
});
