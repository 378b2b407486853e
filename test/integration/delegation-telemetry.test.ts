import type { ClientInput, GatehouseEvent } from '@gatehouse-oidc/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_RESOURCE, OTHER_RESOURCE, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { browser, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, TOKEN } from './harness.js';
import { InMemoryTelemetry } from './in-memory-telemetry.js';
import { exchange, expectTokens, userGrants } from './user-grants.js';

/**
 * The delegation grants and CIBA pings tell the host what they did as the older grants do:
 * `token_issued` events, a span per token request, the tokens counter by grant type; and a
 * span, a counter and an event per CIBA ping. Identifiers only: no token, assertion, auth_req_id,
 * notification token or secret reaches an event, a span or a metric.
 */

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const CIBA = 'urn:openid:params:grant-type:ciba';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const SECRET = 'delegating-secret-0123456789abcdef';
const NOTIFICATION_TOKEN = 'ping-token-Qm9vTjA3aXNhbm90aGVyc2VjcmV0';

const DELEGATE = {
  client_id: 'delegate',
  client_secret: SECRET,
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  response_types: ['code', 'id_token'],
  grant_types: ['authorization_code', TOKEN_EXCHANGE, JWT_BEARER, CIBA],
  scope: 'openid api:read other:read',
  token_exchange: { resources: [OTHER_RESOURCE] },
  backchannel_token_delivery_mode: 'ping',
  backchannel_client_notification_endpoint: 'https://delegate.example.com/ciba',
} as const satisfies ClientInput;

const telemetry = new InMemoryTelemetry('delegation-test');
const { spans } = telemetry;
let idp: TestIdp;
let h: Harness;
let events: GatehouseEvent[];
let reported: unknown[];
/** How the client's notification endpoint answers. */
let pingStatus: number;
/** Every value that must stay out of events, spans and metrics. */
let secrets: string[];

beforeAll(async () => {
  idp = await TestIdp.create();
});

beforeEach(async () => {
  events = [];
  reported = [];
  pingStatus = 204;
  secrets = [SECRET, NOTIFICATION_TOKEN];
  h = await createHarness({
    realm: {
      ciba: {},
      resources: [
        { uri: API_RESOURCE, client_id: 'delegate', scopes: ['api:read'] },
        { uri: OTHER_RESOURCE, client_id: 'other-api', scopes: ['other:read'] },
      ],
      trusted_issuers: [{ issuer: idp.issuer, jwks: idp.jwks as never, profile: 'id-jag' }],
    },
    extraClients: [DELEGATE],
    authenticatorPush: { notify: async () => {} },
    fetch: (async () => new Response(null, { status: pingStatus })) as typeof fetch,
    onEvent: (event) => {
      events.push(event);
    },
    onError: (error) => reported.push(error),
    instrumentation: telemetry.fresh(),
  });
});

const asDelegate = (fields: Record<string, string>) =>
  h.post(TOKEN, { ...fields, client_id: 'delegate', client_secret: SECRET });

/** Alice's access token for API_RESOURCE, the subject token to exchange. */
async function alicesToken(): Promise<string> {
  const code = await (await userGrants(h)).code({
    sub: 'alice',
    scopes: ['openid', 'api:read', 'other:read'],
    resource: API_RESOURCE,
  });
  return expectTokens(await exchange(h, code, { resource: API_RESOURCE })).access_token as string;
}

/** The attributes of the token endpoint's spans, in order. */
const tokenSpans = () =>
  spans
    .getFinishedSpans()
    .filter((span) => span.name === 'gatehouse token')
    .map((span) => span.attributes);

/** Everything the host was told, as text: events, errors, spans (attributes, status), metrics. */
async function everythingTold(): Promise<string> {
  const told = (span: ReadableSpan) => [span.name, span.attributes, span.status, span.events];
  const { resourceMetrics } = await telemetry.collect();
  return JSON.stringify([
    events,
    reported.map(String),
    spans.getFinishedSpans().map(told),
    resourceMetrics,
  ]);
}

async function expectNoSecretTold(): Promise<void> {
  const told = await everythingTold();
  for (const secret of secrets) expect(told).not.toContain(secret);
}

describe('token exchange', () => {
  it('a token_issued event, a token span and the counter by grant type; never a token', async () => {
    const subject = await alicesToken();
    spans.reset();
    const exchanged = expectTokens(
      await asDelegate({
        grant_type: TOKEN_EXCHANGE,
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: OTHER_RESOURCE,
      }),
    );
    const refused = await asDelegate({
      grant_type: TOKEN_EXCHANGE,
      subject_token: `${subject}x`,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: OTHER_RESOURCE,
    });
    expect(refused.status).toBe(400);
    secrets.push(subject, exchanged.access_token as string);

    expect(events.filter((event) => event.type === 'token_issued').at(-1)).toMatchObject({
      grantType: TOKEN_EXCHANGE,
      clientId: 'delegate',
      sub: 'alice',
      realm: 'test',
      jti: expect.any(String),
    });
    expect(tokenSpans()).toEqual([
      expect.objectContaining({ 'gatehouse.realm': 'test', 'http.response.status_code': 200 }),
      expect.objectContaining({ 'gatehouse.oauth.error': refused.json().error }),
    ]);
    expect(await telemetry.counted('gatehouse.tokens.issued')).toContainEqual({
      attributes: { 'gatehouse.realm': 'test', 'gatehouse.grant_type': TOKEN_EXCHANGE },
      value: 1,
    });
    await expectNoSecretTold();
  });
});

describe('JWT bearer', () => {
  it('a token_issued event, a token span and the counter by grant type; never the assertion', async () => {
    const mint = (claims: Record<string, unknown> = {}) =>
      idp.mint(
        {
          sub: 'alice',
          aud: h.issuer(),
          client_id: 'delegate',
          resource: API_RESOURCE,
          scope: 'api:read',
          ...claims,
        },
        { now: h.clock.now() },
      );
    const assertion = await mint();
    const refusedAssertion = await mint({ aud: 'https://elsewhere.example.com' });
    const granted = expectTokens(await asDelegate({ grant_type: JWT_BEARER, assertion }));
    const refused = await asDelegate({ grant_type: JWT_BEARER, assertion: refusedAssertion });
    expect(refused.status).toBe(400);
    secrets.push(assertion, refusedAssertion, granted.access_token as string);

    expect(events.at(-1)).toMatchObject({
      type: 'token_issued',
      grantType: JWT_BEARER,
      clientId: 'delegate',
      sub: 'alice',
      realm: 'test',
    });
    expect(tokenSpans()).toEqual([
      expect.objectContaining({ 'gatehouse.realm': 'test', 'http.response.status_code': 200 }),
      expect.objectContaining({ 'gatehouse.oauth.error': 'invalid_grant' }),
    ]);
    expect(await telemetry.counted('gatehouse.tokens.issued')).toEqual([
      {
        attributes: { 'gatehouse.realm': 'test', 'gatehouse.grant_type': JWT_BEARER },
        value: 1,
      },
    ]);
    await expectNoSecretTold();
  });
});

describe('CIBA ping', () => {
  /** A ping request of alice, decided by `decide`; resolves once its ping event came. */
  async function pinged(decide: (authReqId: string) => Promise<boolean>) {
    const signedIn = await browser(h).signIn({
      client_id: 'delegate',
      response_type: 'id_token',
      scope: 'openid',
    });
    const started = await h.post(endpointPath('bc-authorize'), {
      client_id: 'delegate',
      client_secret: SECRET,
      id_token_hint: clientParams(signedIn).params.id_token ?? '',
      client_notification_token: NOTIFICATION_TOKEN,
    });
    expect(started.status, started.body).toBe(200);
    const authReqId = started.json().auth_req_id as string;
    secrets.push(authReqId);
    expect(await decide(authReqId)).toBe(true);
    while (!events.some((event) => event.type.startsWith('ciba_ping'))) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  const pingSpans = () =>
    spans
      .getFinishedSpans()
      .filter((span) => span.name === 'gatehouse ciba ping')
      .map(({ attributes, status, kind }) => ({ attributes, status, kind }));

  it('a delivered ping: its event, a span over its attempts and the counter', async () => {
    await pinged((id) => h.provider.ciba.approve('test', id));
    expect(events.at(-1)).toEqual({
      type: 'ciba_ping_sent',
      clientId: 'delegate',
      sub: 'alice',
      decision: 'approved',
      durationMs: expect.any(Number),
      realm: 'test',
      time: expect.any(Number),
    });
    expect(pingSpans()).toEqual([
      {
        kind: 2, // CLIENT
        status: { code: 0 },
        attributes: {
          'gatehouse.realm': 'test',
          'gatehouse.client_id': 'delegate',
          'gatehouse.outcome': 'sent',
        },
      },
    ]);
    expect(await telemetry.counted('gatehouse.ciba.pings')).toEqual([
      { attributes: { 'gatehouse.realm': 'test', 'gatehouse.outcome': 'sent' }, value: 1 },
    ]);
    await expectNoSecretTold();
  });

  it('a ping that failed: its event with the reason, an error span and the counter', async () => {
    pingStatus = 400;
    await pinged((id) => h.provider.ciba.deny('test', id));
    expect(events.at(-1)).toMatchObject({
      type: 'ciba_ping_failed',
      decision: 'denied',
      reason: 'answered HTTP 400',
    });
    expect(reported.map(String)).toEqual([
      'CibaPingError: CIBA ping to client "delegate" of realm "test" failed: answered HTTP 400',
    ]);
    expect(pingSpans()).toEqual([
      expect.objectContaining({
        status: { code: 2, message: 'answered HTTP 400' }, // ERROR
        attributes: expect.objectContaining({ 'gatehouse.outcome': 'failed' }),
      }),
    ]);
    expect(await telemetry.counted('gatehouse.ciba.pings')).toEqual([
      { attributes: { 'gatehouse.realm': 'test', 'gatehouse.outcome': 'failed' }, value: 1 },
    ]);
    await expectNoSecretTold();
  });
});
