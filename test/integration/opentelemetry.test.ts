import { openTelemetry } from '@gatehouse-oidc/core/opentelemetry';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRETS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, RecordingStore, TOKEN } from './harness.js';
import { InMemoryTelemetry } from './in-memory-telemetry.js';
import { postAsApp } from './user-grants.js';

/**
 * `@gatehouse-oidc/core/opentelemetry` against OpenTelemetry's own SDK and in-memory exporters:
 * one span per request with its realm, endpoint and error code, and the two counters.
 */

const telemetry = new InMemoryTelemetry('gatehouse-test');
const { spans, tracerProvider } = telemetry;
const contextManager = new AsyncLocalStorageContextManager();
let h: Harness;

/** Spans the store starts, to see which span is active while the provider answers. */
class TracedStore extends RecordingStore {
  override async get<T>(namespace: string, id: string): Promise<T | undefined> {
    const span = trace.getTracer('store').startSpan(`store get ${namespace}`);
    try {
      return await super.get<T>(namespace, id);
    } finally {
      span.end();
    }
  }
}

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(tracerProvider);
});

afterAll(() => {
  context.disable();
  trace.disable();
});

beforeEach(async () => {
  h = await createHarness({
    extraClients: [TV_APP],
    store: (now) => new TracedStore({ now }),
    instrumentation: telemetry.fresh(),
  });
});

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code' as const;
/** A device of the device authorization grant (RFC 8628). */
const TV_APP = {
  client_id: 'tv-app',
  token_endpoint_auth_method: 'none' as const,
  grant_types: [DEVICE],
  scope: 'openid',
};

const gatehouseSpans = () =>
  spans.getFinishedSpans().filter((span) => span.name.startsWith('gatehouse '));

describe('spans', () => {
  it('one per request, with the realm, the endpoint, the method and the status', async () => {
    await h.issueToken('post-client');
    const [span, ...others] = gatehouseSpans();
    expect(others).toEqual([]);
    expect(span?.name).toBe('gatehouse token');
    expect(span?.attributes).toEqual({
      'gatehouse.realm': 'test',
      'gatehouse.endpoint': 'token',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
    });
    expect(span?.status.code).toBe(0);
  });

  it('is active while the provider answers: the store’s spans are its children', async () => {
    const token = await h.issueToken('post-client');
    spans.reset();
    await h.introspect('post-client', token);
    const [request] = gatehouseSpans();
    const storeSpans = spans.getFinishedSpans().filter((span) => span.name.startsWith('store '));
    expect(storeSpans.length).toBeGreaterThan(0);
    for (const span of storeSpans) {
      expect(span.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    }
  });

  it('carries the OAuth error code of a failure, a JSON error, a redirect or a page alike', async () => {
    await h.post(TOKEN, {
      grant_type: 'client_credentials',
      client_id: 'post-client',
      client_secret: 'wrong',
    });
    await browser(h).authorize({ prompt: 'none' });
    await h.get(endpointPath('logout'), {}, 'post_logout_redirect_uri=https%3A%2F%2Fevil.example');
    expect(
      gatehouseSpans().map((span) => [
        span.attributes['gatehouse.endpoint'],
        span.attributes['gatehouse.oauth.error'],
        span.attributes['http.response.status_code'],
      ]),
    ).toEqual([
      ['token', 'invalid_client', 400],
      ['authorize', 'login_required', 302],
      ['logout', 'invalid_request', 400],
    ]);
  });

  it('carries the error code of an answer to a browser script, which CORS headers were added to', async () => {
    const origin = new URL(WEB_REDIRECT_URI).origin;
    const response = await h.post(
      TOKEN,
      {
        grant_type: 'authorization_code',
        code: 'unknown-code',
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
        client_id: 'web-app',
        client_secret: SECRETS.web,
      },
      { origin },
    );
    expect([response.status, response.headers['access-control-allow-origin']]).toEqual([
      400,
      origin,
    ]);
    expect(gatehouseSpans().map((span) => span.attributes['gatehouse.oauth.error'])).toEqual([
      'invalid_grant',
    ]);
    expect(await telemetry.counted('gatehouse.errors')).toEqual([
      {
        attributes: {
          'gatehouse.realm': 'test',
          'gatehouse.endpoint': 'token',
          'gatehouse.oauth.error': 'invalid_grant',
        },
        value: 1,
      },
    ]);
  });

  it('marks a server error as an error; no span for a path that names no endpoint of a realm', async () => {
    const failing = await createHarness({
      store: (now) => {
        const store = new TracedStore({ now });
        store.get = () => Promise.reject(new Error('disk on fire'));
        return store;
      },
      onError: () => {},
      instrumentation: openTelemetry({ tracer: tracerProvider.getTracer('gatehouse-test') }),
    });
    const token = await h.issueToken('post-client');
    spans.reset();
    expect((await failing.introspect('post-client', token)).status).toBe(500);
    await failing.get('/oauth/no-such-realm/token');
    await failing.get('/elsewhere');
    const [span, ...others] = gatehouseSpans();
    expect(others).toEqual([]);
    expect(span?.attributes['gatehouse.oauth.error']).toBe('server_error');
    expect(span?.status).toEqual({ code: 2, message: 'server_error' });
  });
});

describe('counters', () => {
  it('counts token responses by realm and grant type', async () => {
    await h.issueToken('post-client');
    await h.issueToken('basic-client');
    const b = browser(h);
    const { code = '' } = clientParams(await b.signIn()).params;
    await postAsApp(h, 'web-app', TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    });
    expect(await telemetry.counted('gatehouse.tokens.issued')).toEqual([
      {
        attributes: { 'gatehouse.realm': 'test', 'gatehouse.grant_type': 'client_credentials' },
        value: 2,
      },
      {
        attributes: { 'gatehouse.realm': 'test', 'gatehouse.grant_type': 'authorization_code' },
        value: 1,
      },
    ]);
  });

  it('the device grant: spans of its endpoint and polls, its waiting and its tokens counted, no code in any', async () => {
    const started = await h.post(endpointPath('device/auth'), {
      client_id: 'tv-app',
      scope: 'openid',
    });
    const { device_code, user_code } = started.json() as Record<string, string>;
    const poll = () =>
      h.post(TOKEN, { grant_type: DEVICE, device_code: device_code ?? '', client_id: 'tv-app' });
    h.clock.advance(5);
    await poll();
    await browser(h).answerDevice(user_code ?? '', 'allow');
    h.clock.advance(5);
    expect((await poll()).status).toBe(200);

    const names = gatehouseSpans().map((span) => span.name);
    expect(names[0]).toBe('gatehouse device/auth');
    expect(names.filter((name) => name === 'gatehouse token')).toHaveLength(2);
    const exported = JSON.stringify(gatehouseSpans().map((span) => span.attributes));
    expect(exported).not.toContain(device_code);
    expect(exported).not.toContain(user_code);
    expect(await telemetry.counted('gatehouse.tokens.issued')).toEqual([
      { attributes: { 'gatehouse.realm': 'test', 'gatehouse.grant_type': DEVICE }, value: 1 },
    ]);
    expect(await telemetry.counted('gatehouse.errors')).toEqual([
      {
        attributes: {
          'gatehouse.realm': 'test',
          'gatehouse.endpoint': 'token',
          'gatehouse.oauth.error': 'authorization_pending',
        },
        value: 1,
      },
    ]);
  });

  it('counts error answers by realm, endpoint and code', async () => {
    const wrong = { client_id: 'post-client', client_secret: `${SECRETS.post}-wrong` };
    await h.post(TOKEN, { grant_type: 'client_credentials', ...wrong });
    await h.post(TOKEN, { grant_type: 'client_credentials', ...wrong });
    await h.post(TOKEN, { grant_type: 'password' });
    expect(await telemetry.counted('gatehouse.errors')).toEqual([
      {
        attributes: {
          'gatehouse.realm': 'test',
          'gatehouse.endpoint': 'token',
          'gatehouse.oauth.error': 'invalid_client',
        },
        value: 2,
      },
      {
        attributes: {
          'gatehouse.realm': 'test',
          'gatehouse.endpoint': 'token',
          'gatehouse.oauth.error': 'unsupported_grant_type',
        },
        value: 1,
      },
    ]);
  });
});

describe('a failing instrumentation', () => {
  it('is reported and never fails the request', async () => {
    const reported: unknown[] = [];
    const broken = await createHarness({
      onError: (error) => reported.push(error),
      instrumentation: {
        startRequest() {
          throw new Error('no spans today');
        },
        event() {
          throw new Error('no counters either');
        },
      },
    });
    await broken.issueToken('post-client');
    expect(reported.map((error) => (error as Error).message)).toEqual([
      'no spans today',
      'no counters either',
    ]);
  });

  it.each([
    ['throws before the answer starts', () => Promise.reject(new Error('no context'))],
    [
      'fails after the answer started',
      async (answer: () => Promise<unknown>) => {
        await answer();
        throw new Error('no context');
      },
    ],
  ])('answers each request once when `within` %s', async (_, within) => {
    const reported: unknown[] = [];
    const broken = await createHarness({
      onError: (error) => reported.push(error),
      instrumentation: {
        startRequest: () => ({
          within: within as never,
          end() {},
        }),
        event() {},
      },
    });
    await broken.issueToken('post-client');
    // One access token recorded: the request was not answered a second time.
    const tokens = broken.store.writes.filter((write) => write.namespace === 'access_token');
    expect(tokens).toHaveLength(1);
    expect(reported.map((error) => (error as Error).message)).toEqual(['no context']);
  });
});
