import {
  CibaPingError,
  type ClientInput,
  ConfigError,
  createProvider,
  type GatehouseEvent,
} from '@gatehouse-oidc/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { clientKeyPair, testRealm, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams } from './browser.js';
import {
  BASE_URL,
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  TOKEN,
} from './harness.js';

/**
 * CIBA ping mode (CIBA Core 1.0 §10.2): once the user decides, the provider POSTs the
 * auth_req_id to the client's notification endpoint with the client's bearer token, in the
 * background and within bounded attempts, and the client then asks the token endpoint once.
 */

const CIBA = 'urn:openid:params:grant-type:ciba' as const;
const BC_AUTHORIZE = endpointPath('bc-authorize');
const SECRET = 'ping-app-secret-0123456789abcdef';
const ENDPOINT = 'https://ping-app.example.com/ciba/notify';
const NOTIFICATION_TOKEN = 'notify-me-8d1Kq2Lw9zXc4Vb7Nm3Hj6Gf5Ds0Aa';

const pingApp = {
  client_id: 'ping-app',
  client_secret: SECRET,
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  response_types: ['code', 'id_token'],
  grant_types: ['authorization_code', CIBA],
  scope: 'openid profile',
  backchannel_token_delivery_mode: 'ping',
  backchannel_client_notification_endpoint: ENDPOINT,
} as const satisfies ClientInput;

/** What the client's notification endpoint received. */
interface Ping {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The notification endpoint: answers each ping with `answer` (a status, or held until released). */
function notificationEndpoint() {
  const pings: Ping[] = [];
  const endpoint = {
    pings,
    answer: 204 as number | 'hold',
    release: () => {},
    fetch: (async (url: string, init?: RequestInit) => {
      pings.push({
        url,
        headers: init?.headers as Record<string, string>,
        body: String(init?.body),
      });
      if (endpoint.answer === 'hold') {
        await new Promise<void>((resolve) => {
          endpoint.release = resolve;
        });
        return new Response(null, { status: 204 });
      }
      return new Response(null, { status: endpoint.answer });
    }) as typeof fetch,
  };
  return endpoint;
}

let h: Harness;
let receiver: ReturnType<typeof notificationEndpoint>;
let events: GatehouseEvent[];
let reported: unknown[];

beforeEach(async () => {
  receiver = notificationEndpoint();
  events = [];
  reported = [];
  h = await createHarness({
    realm: { ciba: { interval: 5 } },
    extraClients: [pingApp],
    authenticatorPush: { notify: async () => {} },
    fetch: receiver.fetch,
    onEvent: (event) => {
      events.push(event);
    },
    onError: (error) => reported.push(error),
  });
});

async function initiate(fields: Record<string, string> = {}) {
  const signedIn = await browser(h).signIn({ client_id: 'ping-app', response_type: 'id_token' });
  return h.post(BC_AUTHORIZE, {
    client_id: 'ping-app',
    client_secret: SECRET,
    id_token_hint: clientParams(signedIn).params.id_token ?? '',
    client_notification_token: NOTIFICATION_TOKEN,
    ...fields,
  });
}

async function start(): Promise<string> {
  const response = await initiate();
  expect(response.status).toBe(200);
  return response.json().auth_req_id as string;
}

const fetchTokens = (authReqId: string) =>
  h.post(TOKEN, {
    grant_type: CIBA,
    auth_req_id: authReqId,
    client_id: 'ping-app',
    client_secret: SECRET,
  });

/** Resolves once `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Resolves with the first event of `type`, once there is one. */
async function eventOf(type: GatehouseEvent['type']): Promise<GatehouseEvent | undefined> {
  await until(() => events.some((event) => event.type === type));
  return events.find((event) => event.type === type);
}

describe('initiation', () => {
  it('is published in discovery beside poll', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping']);
  });

  it('refuses a ping client’s request without client_notification_token', async () => {
    const response = await initiate({ client_notification_token: '' });
    expectOAuthError(response, 400, 'invalid_request');
    expect(response.json().error_description).toContain('client_notification_token');
  });

  it('takes a client_notification_token of 1024 characters, padding included', async () => {
    const token = `${'a'.repeat(1022)}==`;
    expect((await initiate({ client_notification_token: token })).status).toBe(200);
  });

  it.each([
    ['spaces', 'not a bearer token'],
    ['more than 1024 characters', 'a'.repeat(1025)],
  ])('refuses a client_notification_token with %s, without echoing it', async (_, token) => {
    const response = await initiate({ client_notification_token: token });
    expectOAuthError(response, 400, 'invalid_request');
    expect(response.body).not.toContain(token);
  });
});

describe('the ping', () => {
  it('approve: POSTs the auth_req_id with the bearer token, then the token endpoint answers at once', async () => {
    const id = await start();
    expect(await h.provider.ciba.approve('test', id, { amr: ['hwk'] })).toBe(true);
    const sent = await eventOf('ciba_ping_sent');
    expect(receiver.pings).toEqual([
      {
        url: ENDPOINT,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${NOTIFICATION_TOKEN}`,
        },
        body: JSON.stringify({ auth_req_id: id }),
      },
    ]);
    // Sooner than the interval: a ping client asks as soon as it is told.
    const tokens = await fetchTokens(id);
    expect(tokens.status).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    expectOAuthError(await fetchTokens(id), 400, 'invalid_grant');

    expect(sent).toMatchObject({
      type: 'ciba_ping_sent',
      clientId: 'ping-app',
      sub: 'alice',
      decision: 'approved',
      durationMs: expect.any(Number),
    });
    const said = JSON.stringify([events, reported]);
    expect(said).not.toContain(NOTIFICATION_TOKEN);
    expect(said).not.toContain(id);
  });

  it('deny: pings too, then the token endpoint answers access_denied', async () => {
    const id = await start();
    expect(await h.provider.ciba.deny('test', id)).toBe(true);
    expect(await eventOf('ciba_ping_sent')).toMatchObject({ decision: 'denied' });
    expect(receiver.pings.map((ping) => ping.body)).toEqual([JSON.stringify({ auth_req_id: id })]);
    expectOAuthError(await fetchTokens(id), 400, 'access_denied');
  });

  it('the decision does not wait for the notification endpoint', async () => {
    receiver.answer = 'hold';
    const id = await start();
    expect(await h.provider.ciba.approve('test', id)).toBe(true);
    await until(() => receiver.pings.length === 1);
    // The decision answered while the endpoint still holds the ping.
    expect(events.some((event) => event.type.startsWith('ciba_ping'))).toBe(false);
    receiver.release();
    await eventOf('ciba_ping_sent');
  });

  it('a failing endpoint gets a few attempts, then the failure is reported without the token', async () => {
    receiver.answer = 503;
    const id = await start();
    const decidedAt = performance.now();
    expect(await h.provider.ciba.approve('test', id)).toBe(true);
    expect(performance.now() - decidedAt).toBeLessThan(500);
    const failed = await eventOf('ciba_ping_failed');
    expect(receiver.pings).toHaveLength(3);
    expect(failed).toMatchObject({
      clientId: 'ping-app',
      decision: 'approved',
      reason: 'answered HTTP 503',
    });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(CibaPingError);
    expect(String(reported[0])).toBe(
      'CibaPingError: CIBA ping to client "ping-app" of realm "test" failed: answered HTTP 503',
    );
    expect(JSON.stringify(failed)).not.toContain(NOTIFICATION_TOKEN);
    // The client can still ask, as a poll client would.
    expect((await fetchTokens(id)).status).toBe(200);
  }, 10_000);

  it('is sent by the instance that records the decision, which may not be the one initiated at', async () => {
    const otherReceiver = notificationEndpoint();
    const other = await createHarness({
      clock: h.clock,
      store: () => h.store,
      realm: { ciba: { interval: 5 } },
      extraClients: [pingApp],
      authenticatorPush: { notify: async () => {} },
      fetch: otherReceiver.fetch,
    });
    const id = await start();
    expect(await other.provider.ciba.approve('test', id)).toBe(true);
    await until(() => otherReceiver.pings.length === 1);
    expect(receiver.pings).toEqual([]);
    // The decision is in the shared store: either instance gives the tokens.
    expect((await fetchTokens(id)).status).toBe(200);
  });

  it('a pending request still keeps the interval: a poll too soon cancels it', async () => {
    const id = await start();
    h.clock.advance(1);
    expectOAuthError(await fetchTokens(id), 400, 'slow_down');
    expect(await h.provider.ciba.approve('test', id)).toBe(false);
    expect(receiver.pings).toEqual([]);
  });

  it('a poll client’s client_notification_token is ignored: no ping', async () => {
    const poller = await createHarness({
      realm: { ciba: {} },
      extraClients: [
        {
          ...pingApp,
          backchannel_token_delivery_mode: 'poll',
          backchannel_client_notification_endpoint: undefined,
        },
      ],
      authenticatorPush: { notify: async () => {} },
      fetch: receiver.fetch,
    });
    h = poller;
    const id = await start();
    expect(await poller.provider.ciba.approve('test', id)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.pings).toEqual([]);
  });
});

describe('configuration', () => {
  it.each([
    [
      'ping without an endpoint',
      { backchannel_client_notification_endpoint: undefined },
      /backchannel_client_notification_endpoint: is required for ping/,
    ],
    [
      'a plain http endpoint, even on loopback',
      { backchannel_client_notification_endpoint: 'http://127.0.0.1:9000/notify' },
      /backchannel_client_notification_endpoint: must be https/,
    ],
    [
      'an endpoint for a poll client',
      { backchannel_token_delivery_mode: 'poll' },
      /backchannel_client_notification_endpoint: is only used with ping/,
    ],
    [
      'ping without the CIBA grant',
      { grant_types: ['authorization_code'] as ClientInput['grant_types'] },
      /backchannel_token_delivery_mode: ping needs the urn:openid:params:grant-type:ciba grant/,
    ],
  ] as const)('refuses %s', async (_, change, message) => {
    const keys = await clientKeyPair();
    const realm = testRealm(keys, { ciba: {}, clients: [{ ...pingApp, ...change }] });
    const build = () =>
      createProvider({
        baseUrl: BASE_URL,
        realms: [realm],
        authenticatorPush: { notify: async () => {} },
      });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(message);
  });
});
