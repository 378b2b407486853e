import { type CibaNotification, ConfigError, createProvider } from '@gatehouse-oidc/core';
import { decodeJwt, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { clientKeyPair, SECRETS, testRealm, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams } from './browser.js';
import {
  BASE_URL,
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  NO_STORE,
  TOKEN,
} from './harness.js';

const CIBA = 'urn:openid:params:grant-type:ciba' as const;
const BC_AUTHORIZE = endpointPath('bc-authorize');
const CIBA_SECRET = 'ciba-secret-0123456789abcdef';

const cibaApp = {
  client_id: 'ciba-app',
  client_name: 'Ciba App',
  client_secret: CIBA_SECRET,
  token_endpoint_auth_method: 'client_secret_post' as const,
  redirect_uris: [WEB_REDIRECT_URI],
  response_types: ['code' as const, 'id_token' as const],
  grant_types: ['authorization_code' as const, 'refresh_token' as const, CIBA],
  scope: 'openid profile email',
};

let h: Harness;
let notifications: CibaNotification[];
let pushFailure: Error | undefined;
let reported: unknown[];

beforeEach(async () => {
  notifications = [];
  pushFailure = undefined;
  reported = [];
  h = await createHarness({
    realm: { ciba: { interval: 5, expires_in: 120, max_expires_in: 600 } },
    extraClients: [cibaApp, { ...cibaApp, client_id: 'other-ciba-app', client_name: 'Other' }],
    authenticatorPush: {
      async notify(notification) {
        notifications.push(notification);
        if (pushFailure) throw pushFailure;
      },
    },
    onError: (error) => reported.push(error),
  });
});

/** An ID token the realm issued to `clientId` for alice, through a real sign-in. */
async function idTokenFor(clientId = 'ciba-app', sub = 'alice'): Promise<string> {
  const response = await browser(h).signIn({ client_id: clientId, response_type: 'id_token' }, sub);
  return clientParams(response).params.id_token ?? '';
}

const asClient = (clientId = 'ciba-app') => ({ client_id: clientId, client_secret: CIBA_SECRET });

async function initiate(fields: Record<string, string> = {}, clientId = 'ciba-app') {
  return h.post(BC_AUTHORIZE, {
    ...asClient(clientId),
    id_token_hint: await idTokenFor(clientId),
    ...fields,
  });
}

async function start(fields: Record<string, string> = {}): Promise<string> {
  const response = await initiate(fields);
  expect(response.status).toBe(200);
  return response.json().auth_req_id as string;
}

const poll = (authReqId: string, clientId = 'ciba-app') =>
  h.post(TOKEN, { grant_type: CIBA, auth_req_id: authReqId, ...asClient(clientId) });

describe('initiation (docs/interface.md §4.6, §2.5)', () => {
  it('answers auth_req_id, expires_in and interval, and notifies the authenticator', async () => {
    const response = await initiate({ binding_message: 'Order 4711' });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject(NO_STORE);
    const body = response.json();
    expect(body).toEqual({
      auth_req_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_in: 120,
      interval: 5,
    });
    expect(notifications).toEqual([
      {
        realm: 'test',
        authReqId: body.auth_req_id,
        sub: 'alice',
        clientId: 'ciba-app',
        clientName: 'Ciba App',
        scopes: ['openid', 'profile', 'email'],
        bindingMessage: 'Order 4711',
        expiresAt: h.nowSeconds() + 120,
      },
    ]);
  });

  it('accepts an expired id_token_hint: its signature still counts', async () => {
    const hint = await idTokenFor();
    h.clock.advance(7200);
    const response = await h.post(BC_AUTHORIZE, { ...asClient(), id_token_hint: hint });
    expect(response.status).toBe(200);
  });

  it('honours requested_expiry in seconds, up to the realm maximum', async () => {
    expect((await initiate({ requested_expiry: '30' })).json().expires_in).toBe(30);
    expect((await initiate({ requested_expiry: '100000' })).json().expires_in).toBe(600);
  });

  it('still answers when the authenticator cannot be reached, and tells the operator', async () => {
    pushFailure = new Error('webhook down');
    expect((await initiate()).status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reported).toContain(pushFailure);
  });

  it.each([
    ['no id_token_hint', { id_token_hint: '' }, 'invalid_request'],
    ['a login_hint', { login_hint: 'alice' }, 'invalid_request'],
    ['a login_hint_token', { login_hint_token: 'x.y.z' }, 'invalid_request'],
    ['garbage as the hint', { id_token_hint: 'not-a-jwt' }, 'invalid_request'],
    ['an unassigned scope', { scope: 'openid api:read' }, 'invalid_scope'],
    ['no openid scope', { scope: 'profile' }, 'invalid_scope'],
    ['a long binding_message', { binding_message: 'x'.repeat(129) }, 'invalid_binding_message'],
    ['a control character', { binding_message: 'pay\nnow' }, 'invalid_binding_message'],
    ['a requested_expiry of 0', { requested_expiry: '0' }, 'invalid_request'],
    ['a requested_expiry in words', { requested_expiry: 'soon' }, 'invalid_request'],
  ])('refuses %s', async (_, fields, error) => {
    expectOAuthError(await initiate(fields), 400, error);
    expect(notifications).toEqual([]);
  });

  it('refuses a hint issued to another client', async () => {
    const hint = await idTokenFor('other-ciba-app');
    const response = await h.post(BC_AUTHORIZE, { ...asClient(), id_token_hint: hint });
    expectOAuthError(response, 400, 'invalid_request');
  });

  it('refuses a hint signed by a key that is not the realm’s, and an access token', async () => {
    const { privateKey } = await clientKeyPair();
    const forged = await new SignJWT({ sub: 'alice', aud: 'ciba-app' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer(h.issuer())
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const forgedAnswer = await h.post(BC_AUTHORIZE, { ...asClient(), id_token_hint: forged });
    expectOAuthError(forgedAnswer, 400, 'invalid_request');
    const accessToken = await h.issueToken();
    const accessAnswer = await h.post(BC_AUTHORIZE, { ...asClient(), id_token_hint: accessToken });
    expectOAuthError(accessAnswer, 400, 'invalid_request');
  });

  it('answers unknown_user_id when the hinted user no longer exists', async () => {
    const hint = await idTokenFor('ciba-app', 'alice');
    const gone = await createHarness({
      clock: h.clock,
      store: () => h.store,
      realm: { ciba: {} },
      extraClients: [cibaApp],
      authenticatorPush: { notify: async () => {} },
      accounts: { findAccount: async () => undefined },
    });
    const response = await gone.post(BC_AUTHORIZE, { ...asClient(), id_token_hint: hint });
    expectOAuthError(response, 400, 'unknown_user_id');
  });

  it('is only for clients with the CIBA grant type', async () => {
    const response = await h.post(BC_AUTHORIZE, {
      client_id: 'web-app',
      client_secret: SECRETS.web,
      id_token_hint: await idTokenFor('web-app'),
    });
    expectOAuthError(response, 400, 'unauthorized_client');
  });

  it('does not exist in a realm without CIBA, nor in its discovery', async () => {
    const plain = await createHarness();
    const response = await plain.post(BC_AUTHORIZE, { client_id: 'x' });
    expect(response.status).toBe(404);
    const metadata = (await plain.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.backchannel_authentication_endpoint).toBeUndefined();
    expect(metadata.grant_types_supported).not.toContain(CIBA);
  });

  it('is published in discovery (CIBA Core 1.0 §4)', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata).toMatchObject({
      backchannel_authentication_endpoint: `${h.issuer()}/bc-authorize`,
      backchannel_token_delivery_modes_supported: ['poll', 'ping'],
      backchannel_user_code_parameter_supported: false,
      grant_types_supported: expect.arrayContaining([CIBA]),
    });
  });
});

describe('polling (docs/interface.md §4.7 and §3)', () => {
  it('authorization_pending after the interval while the user has not answered', async () => {
    const id = await start();
    h.clock.advance(5);
    expectOAuthError(await poll(id), 400, 'authorization_pending');
    h.clock.advance(5);
    expectOAuthError(await poll(id), 400, 'authorization_pending');
  });

  it('a poll sooner than the interval after the initiation cancels the request (slow_down)', async () => {
    const id = await start();
    h.clock.advance(4);
    expectOAuthError(await poll(id), 400, 'slow_down');
    h.clock.advance(60);
    expectOAuthError(await poll(id), 400, 'invalid_grant');
    expect(await h.provider.ciba.approve('test', id)).toBe(false);
  });

  it('a poll sooner than the interval after the previous poll cancels it too', async () => {
    const id = await start();
    h.clock.advance(5);
    expectOAuthError(await poll(id), 400, 'authorization_pending');
    h.clock.advance(4);
    expectOAuthError(await poll(id), 400, 'slow_down');
    await h.provider.ciba.approve('test', id);
    h.clock.advance(10);
    expectOAuthError(await poll(id), 400, 'invalid_grant');
  });

  it('approved: the tokens exactly once, for the hinted user as the approval says', async () => {
    const id = await start();
    h.clock.advance(3);
    expect(
      await h.provider.ciba.approve('test', id, { amr: ['hwk', 'face'], acr: 'urn:example:loa:3' }),
    ).toBe(true);
    const approvedAt = h.nowSeconds();
    h.clock.advance(2);
    const response = await poll(id);
    expect(response.status).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 600,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });
    expect(decodeJwt(body.id_token as string)).toMatchObject({
      sub: 'alice',
      aud: 'ciba-app',
      auth_time: approvedAt,
      amr: ['hwk', 'face'],
      acr: 'urn:example:loa:3',
    });
    h.clock.advance(5);
    expectOAuthError(await poll(id), 400, 'invalid_grant');
  });

  it('issues under the user’s grant to the client, whose revocation revokes the tokens', async () => {
    const id = await start();
    await h.provider.ciba.approve('test', id);
    h.clock.advance(5);
    const body = (await poll(id)).json();
    const [grant] = await h.provider.grants.list('test', 'alice');
    expect(grant?.clientId).toBe('ciba-app');
    expect(grant?.scopes).toContain('openid');
    const introspect = () =>
      h.post(endpointPath('introspect'), { token: body.access_token as string, ...asClient() });
    expect((await introspect()).json().active).toBe(true);

    expect(await h.provider.grants.revoke('test', 'alice', 'ciba-app')).toBe(true);
    expect((await introspect()).json().active).toBe(false);
    const refreshed = await h.post(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token as string,
      ...asClient(),
    });
    expectOAuthError(refreshed, 400, 'invalid_grant');
  });

  it('denied: access_denied', async () => {
    const id = await start();
    expect(await h.provider.ciba.deny('test', id)).toBe(true);
    h.clock.advance(5);
    expectOAuthError(await poll(id), 400, 'access_denied');
    expect(await h.provider.ciba.approve('test', id)).toBe(false);
  });

  it('expired: expired_token, and the user can no longer approve', async () => {
    const id = await start();
    h.clock.advance(120);
    expect(await h.provider.ciba.approve('test', id)).toBe(false);
    expectOAuthError(await poll(id), 400, 'expired_token');
  });

  it('is the requesting client’s only', async () => {
    const id = await start();
    await h.provider.ciba.approve('test', id);
    h.clock.advance(5);
    expectOAuthError(await poll(id, 'other-ciba-app'), 400, 'invalid_grant');
    expect((await poll(id)).status).toBe(200);
  });

  it('unknown auth_req_id: invalid_grant; none: invalid_request', async () => {
    expectOAuthError(await poll('no-such-request'), 400, 'invalid_grant');
    const missing = await h.post(TOKEN, { grant_type: CIBA, ...asClient() });
    expectOAuthError(missing, 400, 'invalid_request');
  });

  it('decides only once, and not for unknown requests or realms', async () => {
    const id = await start();
    expect(await h.provider.ciba.approve('test', id)).toBe(true);
    expect(await h.provider.ciba.deny('test', id)).toBe(false);
    expect(await h.provider.ciba.approve('test', 'no-such-request')).toBe(false);
    expect(await h.provider.ciba.approve('nowhere', id)).toBe(false);
  });

  it('gives one token set to concurrent polls of an approved request', async () => {
    const id = await start();
    await h.provider.ciba.approve('test', id);
    h.clock.advance(5);
    const responses = await Promise.all(Array.from({ length: 10 }, () => poll(id)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
  });

  it('lets exactly one of concurrent approve and deny win', async () => {
    const id = await start();
    const [approved, denied] = await Promise.all([
      h.provider.ciba.approve('test', id),
      h.provider.ciba.deny('test', id),
    ]);
    expect(approved !== denied).toBe(true);
  });
});

it('refuses to start a realm with CIBA but no authenticator push', async () => {
  const keys = await clientKeyPair();
  expect(() =>
    createProvider({ baseUrl: BASE_URL, realms: [testRealm(keys, { ciba: {} })] }),
  ).toThrow(ConfigError);
});

describe('review hardening', () => {
  it('refuses the CIBA grant to a public client at configuration time', async () => {
    const keys = await clientKeyPair();
    const realm = testRealm(keys, {
      ciba: {},
      clients: [
        {
          client_id: 'public-ciba',
          token_endpoint_auth_method: 'none',
          grant_types: [CIBA],
          scope: 'openid',
        },
      ],
    });
    expect(() =>
      createProvider({
        baseUrl: BASE_URL,
        realms: [realm],
        authenticatorPush: { notify: async () => {} },
      }),
    ).toThrow(/needs a client that authenticates/);
  });

  it.each([
    ['a right-to-left override', 'pay \u202e0001'],
    ['a zero-width space', 'pay\u200bnow'],
    ['a line separator', 'pay\u2028now'],
    ['only spaces', '   '],
  ])('refuses a binding_message with %s', async (_, message) => {
    expectOAuthError(await initiate({ binding_message: message }), 400, 'invalid_binding_message');
  });

  it('answers even when the authenticator push throws instead of rejecting', async () => {
    const throwing = await createHarness({
      clock: h.clock,
      store: () => h.store,
      realm: { ciba: {} },
      extraClients: [cibaApp],
      authenticatorPush: {
        notify: () => {
          throw new Error('synchronous failure');
        },
      },
      onError: (error) => reported.push(error),
    });
    const response = await throwing.post(BC_AUTHORIZE, {
      ...asClient(),
      id_token_hint: await idTokenFor(),
    });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(reported[0])).toContain('synchronous failure');
  });

  it('gives no tokens when the account went away while the request waited', async () => {
    const users = new Set(['alice']);
    const shrinking = await createHarness({
      clock: h.clock,
      store: () => h.store,
      realm: { ciba: {} },
      extraClients: [cibaApp],
      authenticatorPush: { notify: async () => {} },
      accounts: {
        findAccount: async (_realm, sub) => (users.has(sub) ? { sub, claims: {} } : undefined),
      },
    });
    const response = await shrinking.post(BC_AUTHORIZE, {
      ...asClient(),
      id_token_hint: await idTokenFor(),
    });
    const id = response.json().auth_req_id as string;
    await shrinking.provider.ciba.approve('test', id);
    users.delete('alice');
    h.clock.advance(5);
    const poll = await shrinking.post(TOKEN, { grant_type: CIBA, auth_req_id: id, ...asClient() });
    expectOAuthError(poll, 400, 'invalid_grant');
  });

  it('cancels a poll even one millisecond early', async () => {
    const id = await start();
    h.clock.advance(4.999);
    expectOAuthError(await poll(id), 400, 'slow_down');
  });
});
