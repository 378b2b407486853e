import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CibaNotification, ConfigError, type ConfigIssue } from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { InjectBrowser } from './pages-support.js';
import { signInThroughPages } from './sign-in-support.js';
import { ADMIN_TOKEN, validConfig, withChanges } from './support.js';

const CIBA = 'urn:openid:params:grant-type:ciba';
const BASE_URL = 'http://127.0.0.1:3000';
const REDIRECT_URI = 'https://app.example.com/cb';
const WEBHOOK = 'https://authenticator.example.com/push';
const AS_WEB = { authorization: basicAuthorization('web', SECRETS.basic) };
const AS_ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** The shared test config with CIBA on the realm and the `web` client. */
function cibaConfig(changes: Record<string, unknown> = {}) {
  return withChanges(validConfig(), {
    cookie_secret: 'cookie-secret-0123456789abcdef0123456789',
    'realms.0.ciba': { interval: 5, expires_in: 120, authenticator: { webhook_url: WEBHOOK } },
    'realms.0.clients.2.grant_types': ['authorization_code', CIBA],
    'realms.0.clients.2.client_name': 'Web app',
    'realms.0.clients.2.skip_consent': true,
    ...changes,
  });
}

function issuesOf(input: unknown): readonly ConfigIssue[] {
  try {
    parseServerConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

describe('the ciba block of the server config', () => {
  it('is accepted with core defaults, and the realm publishes its backchannel endpoint', async () => {
    const config = parseServerConfig(cibaConfig());
    expect(config.realms[0]?.ciba).toEqual({
      interval: 5,
      expires_in: 120,
      max_expires_in: 600,
      authenticator: { webhook_url: WEBHOOK },
    });
    const { app } = buildServer(config);
    const discovery = await app.inject({ url: '/oauth/demo/.well-known/openid-configuration' });
    await app.close();
    expect(discovery.json()).toMatchObject({
      backchannel_authentication_endpoint: `${BASE_URL}/oauth/demo/bc-authorize`,
      backchannel_token_delivery_modes_supported: ['poll', 'ping'],
      grant_types_supported: expect.arrayContaining([CIBA]),
    });
  });

  it.each([
    {
      name: 'a webhook_url of another scheme',
      changes: { 'realms.0.ciba.authenticator.webhook_url': 'ftp://hooks.example.com/push' },
      path: 'realms[0].ciba.authenticator.webhook_url',
      message: 'must be an absolute http(s) URL',
    },
    {
      name: 'a relative webhook_url',
      changes: { 'realms.0.ciba.authenticator.webhook_url': '/push' },
      path: 'realms[0].ciba.authenticator.webhook_url',
      message: 'must be an absolute http(s) URL',
    },
    {
      name: 'a webhook_url with credentials',
      changes: { 'realms.0.ciba.authenticator.webhook_url': 'https://u:p@hooks.example.com/' },
      path: 'realms[0].ciba.authenticator.webhook_url',
      message: 'must not contain a user name or password',
    },
    {
      name: 'an unknown authenticator key',
      changes: { 'realms.0.ciba.authenticator.secret': 'x' },
      path: 'realms[0].ciba.authenticator',
      message: 'Unrecognized key: "secret"',
    },
    {
      name: 'an unknown ciba key',
      changes: { 'realms.0.ciba.mode': 'push' },
      path: 'realms[0].ciba',
      message: 'Unrecognized key: "mode"',
    },
    {
      name: 'expires_in above max_expires_in',
      changes: { 'realms.0.ciba.expires_in': 900 },
      path: 'realms[0].ciba.expires_in',
      message: 'expires_in must not exceed max_expires_in',
    },
    {
      name: 'no admin_token',
      changes: { admin_token: undefined },
      path: 'realms[0].ciba',
      message: 'needs admin_token: the authenticator approves or denies through the admin API',
    },
    {
      name: 'a ping client without a notification endpoint',
      changes: { 'realms.0.clients.2.backchannel_token_delivery_mode': 'ping' },
      path: 'realms[0].clients[2].backchannel_client_notification_endpoint',
      message: 'is required for ping',
    },
    {
      name: 'a notification endpoint over plain http, even on loopback',
      changes: {
        'realms.0.clients.2.backchannel_token_delivery_mode': 'ping',
        'realms.0.clients.2.backchannel_client_notification_endpoint': 'http://127.0.0.1:8443/ping',
      },
      path: 'realms[0].clients[2].backchannel_client_notification_endpoint',
      message: 'must be https',
    },
    {
      name: 'a CIBA client in a realm without ciba',
      changes: { 'realms.0.ciba': undefined },
      path: 'realms[0].clients[2].grant_types',
      message: 'needs the realm',
    },
  ])('refuses $name at $path', ({ changes, path, message }) => {
    expect(issuesOf(cibaConfig(changes))).toEqual([
      { path, message: expect.stringContaining(message) },
    ]);
  });
});

/** Alice signs in on the login page; the code is exchanged for her ID token. */
async function signInForIdToken(app: FastifyInstance): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
  });
  const callback = await signInThroughPages(
    new InjectBrowser(app, BASE_URL),
    `${BASE_URL}/oauth/demo/authorize?${query}`,
    { username: 'alice', password: 'alice-password' },
  );
  const token = await app.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: { ...FORM_HEADERS, ...AS_WEB },
    payload: form({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    }),
  });
  expect(token.statusCode, token.body).toBe(200);
  return token.json().id_token;
}

/** One server for every test: each works on its own request, and the clock only moves forward. */
describe('CIBA approve and deny through the admin API', () => {
  const clock = fakeClock(Date.now());
  const notifications: CibaNotification[] = [];
  const report = vi.fn();
  /** The realm whose authenticator channel says it is full. */
  let busyRealm: string | undefined;
  let server: Server;
  let app: FastifyInstance;
  let idTokenHint: string;

  beforeAll(async () => {
    server = buildServer(parseServerConfig(cibaConfig()), {
      now: clock.now,
      authenticatorPush: {
        notify: async (notification) => void notifications.push(notification),
        accepts: (realm) => realm !== busyRealm,
      },
      report,
    });
    app = server.app;
    idTokenHint = await signInForIdToken(app);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    notifications.length = 0;
    report.mockClear();
  });

  async function initiate(): Promise<string> {
    const response = await app.inject({
      method: 'POST',
      url: '/oauth/demo/bc-authorize',
      headers: { ...FORM_HEADERS, ...AS_WEB },
      payload: form({ id_token_hint: idTokenHint, binding_message: 'Order 4711' }),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().auth_req_id;
  }

  const poll = (authReqId: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth/demo/token',
      headers: { ...FORM_HEADERS, ...AS_WEB },
      payload: form({ grant_type: CIBA, auth_req_id: authReqId }),
    });

  /** The poll a well-behaved client makes: `interval` after the previous one. */
  function pollInTime(authReqId: string) {
    clock.advance(5);
    return poll(authReqId);
  }

  const decide = (
    authReqId: string,
    decision: string,
    {
      headers = AS_ADMIN,
      body,
      remoteAddress,
    }: { headers?: Record<string, string>; body?: string; remoteAddress?: string } = {},
  ) =>
    app.inject({
      method: 'POST',
      url: `/admin/realms/demo/ciba/${authReqId}/${decision}`,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { payload: body }),
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
    });

  /** The request is still pending: the next poll in time says so. */
  async function expectPending(authReqId: string) {
    const response = await pollInTime(authReqId);
    expect(response.json().error).toBe('authorization_pending');
  }

  it('answers 503 temporarily_unavailable with Retry-After while the push is full, and pushes nothing', async () => {
    busyRealm = 'demo';
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/oauth/demo/bc-authorize',
        headers: { ...FORM_HEADERS, ...AS_WEB },
        payload: form({ id_token_hint: idTokenHint }),
      });
      expect([response.statusCode, response.json()]).toEqual([
        503,
        {
          error: 'temporarily_unavailable',
          error_description: 'the authenticator is busy; try again later',
        },
      ]);
      expect(response.headers['retry-after']).toBe('5');
      expect(notifications).toEqual([]);
    } finally {
      busyRealm = undefined;
    }
    await initiate();
    expect(notifications).toHaveLength(1);
  });

  it('hands the authenticator push what the app shows', async () => {
    const authReqId = await initiate();
    expect(notifications).toEqual([
      {
        realm: 'demo',
        authReqId,
        sub: 'alice',
        clientId: 'web',
        clientName: 'Web app',
        scopes: ['openid', 'profile'],
        bindingMessage: 'Order 4711',
        expiresAt: Math.floor(clock.now() / 1000) + 120,
      },
    ]);
  });

  it('approve with amr and acr: 204, then the poll gets tokens that carry them', async () => {
    const authReqId = await initiate();
    const approvedAt = Math.floor(clock.now() / 1000);
    const response = await decide(authReqId, 'approve', {
      body: JSON.stringify({ amr: ['hwk', 'face'], acr: 'urn:example:loa:3' }),
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const tokens = await pollInTime(authReqId);
    expect(tokens.statusCode, tokens.body).toBe(200);
    expect(decodeJwt(tokens.json().id_token)).toMatchObject({
      sub: 'alice',
      aud: 'web',
      amr: ['hwk', 'face'],
      acr: 'urn:example:loa:3',
      auth_time: approvedAt,
    });
  });

  it('approve without a body: 204, and the ID token has neither amr nor acr', async () => {
    const authReqId = await initiate();
    expect((await decide(authReqId, 'approve')).statusCode).toBe(204);
    const claims = decodeJwt((await pollInTime(authReqId)).json().id_token);
    expect(claims).not.toHaveProperty('amr');
    expect(claims).not.toHaveProperty('acr');
  });

  it('deny: 204, then the poll answers access_denied', async () => {
    const authReqId = await initiate();
    expect((await decide(authReqId, 'deny')).statusCode).toBe(204);
    const response = await pollInTime(authReqId);
    expect([response.statusCode, response.json().error]).toEqual([400, 'access_denied']);
  });

  it.each([
    ['approve', 'approve'],
    ['approve', 'deny'],
    ['deny', 'approve'],
    ['deny', 'deny'],
  ])('answers 404 to %s after %s: the request is no longer pending', async (first, second) => {
    const authReqId = await initiate();
    expect((await decide(authReqId, first)).statusCode).toBe(204);
    const response = await decide(authReqId, second);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found' });
  });

  it('answers 404 for an unknown auth_req_id and for an unknown realm', async () => {
    const authReqId = await initiate();
    expect((await decide(`${authReqId}x`, 'approve')).statusCode).toBe(404);
    const otherRealm = await app.inject({
      method: 'POST',
      url: `/admin/realms/nope/ciba/${authReqId}/approve`,
      headers: AS_ADMIN,
    });
    expect([otherRealm.statusCode, otherRealm.json()]).toEqual([404, { error: 'not_found' }]);
    await expectPending(authReqId);
  });

  it('answers 404 once the request has expired, or was cancelled by a poll too soon', async () => {
    const expired = await initiate();
    clock.advance(120);
    expect((await decide(expired, 'approve')).statusCode).toBe(404);

    const cancelled = await initiate();
    expect((await poll(cancelled)).json().error).toBe('slow_down');
    expect((await decide(cancelled, 'approve')).statusCode).toBe(404);
  });

  it('answers 404 to a decision other than approve or deny', async () => {
    const authReqId = await initiate();
    expect((await decide(authReqId, 'maybe')).statusCode).toBe(404);
    await expectPending(authReqId);
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['a client credential', AS_WEB],
  ])('answers 401 to %s and decides nothing', async (_name, headers) => {
    const authReqId = await initiate();
    for (const decision of ['approve', 'deny']) {
      const response = await decide(authReqId, decision, { headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'invalid_token' });
    }
    await expectPending(authReqId);
  });

  it('approves with the right token from an address a stranger got throttled with wrong ones', async () => {
    const remoteAddress = '192.0.2.77';
    const wrongToken = { authorization: `Bearer ${ADMIN_TOKEN}x` };
    const authReqId = await initiate();
    const guesses: number[] = [];
    for (let guess = 0; guess < 12; guess += 1) {
      guesses.push(
        (await decide(authReqId, 'approve', { headers: wrongToken, remoteAddress })).statusCode,
      );
    }
    expect(guesses).toEqual([...Array(10).fill(401), 429, 429]);
    expect((await decide(authReqId, 'approve', { remoteAddress })).statusCode).toBe(204);
    expect((await pollInTime(authReqId)).statusCode).toBe(200);
    const realms = await app.inject({ url: '/admin/realms', headers: AS_ADMIN, remoteAddress });
    expect(realms.statusCode).toBe(200);
    const thirteenth = await decide(authReqId, 'deny', { headers: wrongToken, remoteAddress });
    expect(thirteenth.statusCode).toBe(429);
    expect(thirteenth.headers['retry-after']).toEqual(expect.any(String));
  });

  it.each([
    ['not JSON', 'amr=hwk', 'the body is not valid JSON'],
    ['an array', '["hwk"]', 'expected object'],
    ['amr as a string', '{"amr":"hwk"}', 'amr: Invalid input: expected array'],
    ['an empty amr', '{"amr":[]}', 'amr: must list at least one method'],
    ['an amr value with a space', '{"amr":["hw k"]}', 'amr[0]: each value must be printable'],
    ['acr as a number', '{"acr":3}', 'acr: Invalid input: expected string'],
    ['an unknown key', '{"auth_time":1}', "Unrecognized key: 'auth_time'"],
  ])(
    'answers 400 to an approval body that is %s, and leaves the request pending',
    async (_name, body, description) => {
      const authReqId = await initiate();
      const response = await decide(authReqId, 'approve', { body });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: 'invalid_request',
        error_description: expect.stringContaining(description),
      });
      await expectPending(authReqId);
    },
  );

  it('answers 400 to an approval body nested deeper than 32 levels', async () => {
    const authReqId = await initiate();
    const response = await decide(authReqId, 'approve', {
      body: `{"amr":${'['.repeat(500)}${']'.repeat(500)}}`,
    });
    expect([response.statusCode, response.json()]).toEqual([
      400,
      {
        error: 'invalid_request',
        error_description: 'the body nests objects and arrays more than 32 levels deep',
      },
    ]);
    await expectPending(authReqId);
  });

  it('answers 400 to a JSON approval sent with another content type', async () => {
    const authReqId = await initiate();
    const response = await decide(authReqId, 'approve', {
      headers: { ...AS_ADMIN, 'content-type': 'text/plain' },
      body: '{"amr":["hwk"]}',
    });
    expect(response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the body must be JSON, with Content-Type: application/json',
    });
  });

  it('refuses an approval body over 1 KiB with 413', async () => {
    const authReqId = await initiate();
    const body = JSON.stringify({ acr: 'a'.repeat(2000) });
    const response = await decide(authReqId, 'approve', { body });
    expect([response.statusCode, response.json()]).toEqual([413, { error: 'invalid_request' }]);
    await expectPending(authReqId);
  });

  it('reports an unexpected failure without the auth_req_id in full, and answers 500', async () => {
    vi.spyOn(server.provider.ciba, 'deny').mockRejectedValueOnce(new Error('disk on fire'));
    const authReqId = await initiate();
    const response = await decide(authReqId, 'deny');
    expect([response.statusCode, response.json().error]).toEqual([500, 'server_error']);
    expect(report).toHaveBeenCalledWith(expect.objectContaining({ message: 'disk on fire' }), {
      method: 'POST',
      path: `/admin/realms/demo/ciba/${authReqId.slice(0, 6)}…/deny`,
    });
  });
});

describe('the config’s limits on CIBA pushes', () => {
  it('answers 503 once the pushes at once and the queue of a realm are taken', async () => {
    // A webhook that takes the push and never answers: the first push stays in flight.
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const { port } = hanging.address() as AddressInfo;
    const { app } = buildServer(
      parseServerConfig(
        cibaConfig({
          'realms.0.ciba.authenticator.webhook_url': `http://127.0.0.1:${port}/push`,
          limits: { ciba_pushes_at_once: 1, ciba_pushes_queued: 0 },
        }),
      ),
      { report: () => {} },
    );
    try {
      const initiate = async () =>
        app.inject({
          method: 'POST',
          url: '/oauth/demo/bc-authorize',
          headers: { ...FORM_HEADERS, ...AS_WEB },
          payload: form({ id_token_hint: await signInForIdToken(app) }),
        });
      expect((await initiate()).statusCode).toBe(200);
      const refused = await initiate();
      expect([refused.statusCode, refused.json().error]).toEqual([503, 'temporarily_unavailable']);
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
      await app.close();
    }
  });
});
