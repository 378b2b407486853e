import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { API_RESOURCE, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams, isInteraction } from './browser.js';
import { createHarness, type Harness, type TestResponse } from './harness.js';

let h: Harness;
let b: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'no-pkce-app',
        client_secret: 'no-pkce-secret-0123456789',
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: ['https://legacy.example.com/cb?tenant=1'],
        response_types: ['code'],
        response_modes: ['query'],
        scope: 'openid api:read',
        require_pkce: false,
      },
    ],
  });
  b = browser(h);
});

/** An error of docs/interface.md §7.1: an HTML page at the provider, never a redirect. */
function expectShownAtProvider(response: TestResponse, error: string): void {
  expect(response.status).toBe(400);
  expect(response.headers.location).toBeUndefined();
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.body).toContain(`<code id="error">${error}</code>`);
  expect(response.headers['x-frame-options']).toBe('DENY');
}

/** An error of docs/interface.md §7.2: redirected to the client with error, state and iss. */
function expectRedirectedError(response: TestResponse, error: string, mode = 'query'): void {
  const received = clientParams(response);
  expect(received.mode).toBe(mode);
  expect(received.params).toMatchObject({ error, state: 'state-123', iss: h.issuer() });
  expect(received.params.error_description).toEqual(expect.any(String));
  expect(received.params.code).toBeUndefined();
}

describe('errors shown at the provider (7.1)', () => {
  it.each([
    ['an unknown client', { client_id: 'nobody' }],
    ['no client_id', { client_id: '' }],
  ])('invalid_client_id for %s', async (_, params) => {
    expectShownAtProvider(await b.authorize(params), 'invalid_client_id');
  });

  it.each([
    ['missing', ''],
    ['another path', 'https://app.example.com/other'],
    ['a trailing slash', `${WEB_REDIRECT_URI}/`],
    ['another case', 'https://APP.example.com/cb'],
    ['percent-encoding', 'https://app.example.com/%63b'],
    ['a prefix match', `${WEB_REDIRECT_URI}/../evil`],
    ['an extra query', `${WEB_REDIRECT_URI}?x=1`],
    ['userinfo before the host (@)', 'https://app.example.com@evil.example/cb'],
    ['a look-alike host', 'https://app.example.com.evil.example/cb'],
    ['a javascript: URI', 'javascript:alert(1)//https://app.example.com/cb'],
    ['a fragment', `${WEB_REDIRECT_URI}#x`],
  ])('invalid_redirect_uri for %s', async (_, redirect_uri) => {
    expectShownAtProvider(await b.authorize({ redirect_uri }), 'invalid_redirect_uri');
  });

  it('shows a malformed request (repeated parameter) without redirecting', async () => {
    const response = await b.visit(
      `${h.issuer()}/authorize?client_id=web-app&client_id=web-app&redirect_uri=${encodeURIComponent(WEB_REDIRECT_URI)}`,
    );
    expectShownAtProvider(response, 'invalid_request');
  });

  it('escapes what it echoes', async () => {
    const response = await b.authorize({ client_id: '<script>alert(1)</script>' });
    expect(response.body).not.toContain('<script>');
  });
});

describe('errors redirected to the client (7.2)', () => {
  it.each([
    ['invalid_response_type', { response_type: 'token' }],
    ['invalid_response_type', { response_type: 'code unknown' }],
    ['invalid_request', { response_type: '' }],
    ['invalid_scope', { scope: 'openid admin' }],
    ['invalid_scope', { scope: 'openid other:read' }],
    ['invalid_response_mode', { response_mode: 'web_message' }],
    ['invalid_code_challenge', { code_challenge: '' }],
    ['invalid_code_challenge', { code_challenge: 'too-short' }],
    ['invalid_code_challenge_method', { code_challenge_method: '' }],
    ['invalid_code_challenge_method', { code_challenge_method: 'plain' }],
    ['invalid_request', { resource: 'https://unknown.example.com' }],
    ['invalid_request', { resource: API_RESOURCE, scope: 'openid profile' }],
    ['invalid_request', { prompt: 'none login' }],
    ['invalid_request', { prompt: 'select_account' }],
    ['invalid_request', { max_age: '-1' }],
    ['request_not_supported', { request: 'eyJ...' }],
    ['request_uri_not_supported', { request_uri: 'https://app.example.com/r' }],
  ])('%s for %j', async (error, params) => {
    expectRedirectedError(await b.authorize(params), error);
  });

  it('sends request_not_supported the way a request object asks, as form_post clients expect', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const object = `${encode({ alg: 'none' })}.${encode({ response_mode: 'form_post', state: 'in-object' })}.`;
    const { mode, params } = clientParams(await b.authorize({ request: object, state: '' }));
    expect(mode).toBe('form_post');
    expect(params.error).toBe('request_not_supported');
    // Nothing else of the unverified object is used: its state is not echoed.
    expect(params.state).toBeUndefined();
  });

  it('nonce_required when an id_token goes to the redirect_uri without a nonce', async () => {
    expectRedirectedError(
      await b.authorize({ response_type: 'code id_token', nonce: '' }),
      'nonce_required',
      'fragment',
    );
  });

  it('never puts tokens in the query string: response_mode=query with a token is refused', async () => {
    const response = await b.authorize({ response_type: 'id_token token', response_mode: 'query' });
    expectRedirectedError(response, 'invalid_response_mode', 'fragment');
  });

  it('checks response_mode against the client whitelist', async () => {
    const response = await b.authorize({
      client_id: 'no-pkce-app',
      redirect_uri: 'https://legacy.example.com/cb?tenant=1',
      response_mode: 'fragment',
      code_challenge: '',
      code_challenge_method: '',
    });
    const location = new URL(response.headers.location ?? '');
    expect(location.searchParams.get('tenant')).toBe('1');
    expect(location.searchParams.get('error')).toBe('invalid_response_mode');
  });

  it('needs an openid scope for an id_token', async () => {
    expectRedirectedError(
      await b.authorize({ response_type: 'id_token', scope: 'profile' }),
      'invalid_scope',
      'fragment',
    );
  });

  it('omits state when none was sent, but always sends iss', async () => {
    const { params } = clientParams(await b.authorize({ scope: 'openid admin', state: '' }));
    expect(params).toEqual({
      error: 'invalid_scope',
      error_description: expect.any(String),
      iss: h.issuer(),
    });
  });

  it('login_required for prompt=none without a session', async () => {
    expectRedirectedError(await b.authorize({ prompt: 'none' }), 'login_required');
  });

  it('access_denied when the user refuses', async () => {
    const login = await b.authorize();
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    expectRedirectedError(await b.finish(consent, { error: 'access_denied' }), 'access_denied');
  });
});

describe('successful responses (2.3)', () => {
  it('answers code in the query with state, iss and session_state by default', async () => {
    const { mode, params } = clientParams(await b.signIn());
    expect(mode).toBe('query');
    expect(Object.keys(params).sort()).toEqual(['code', 'iss', 'session_state', 'state']);
    expect(params.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.session_state).toMatch(/^[0-9a-f]{64}\.[A-Za-z0-9_-]+$/);
  });

  it('answers code in the fragment when asked', async () => {
    expect(clientParams(await b.signIn({ response_mode: 'fragment' })).mode).toBe('fragment');
  });

  it.each([
    ['id_token', ['id_token']],
    ['id_token token', ['access_token', 'expires_in', 'id_token', 'scope', 'token_type']],
    ['code id_token', ['code', 'id_token']],
    ['code token', ['access_token', 'code', 'expires_in', 'scope', 'token_type']],
    [
      'code id_token token',
      ['access_token', 'code', 'expires_in', 'id_token', 'scope', 'token_type'],
    ],
    ['none', []],
  ])('%s: the fragment carries exactly what the response type asks for', async (type, expected) => {
    const { mode, params } = clientParams(await b.signIn({ response_type: type }));
    expect(mode).toBe(type === 'none' ? 'query' : 'fragment');
    const issued = Object.keys(params).filter(
      (key) => !['iss', 'state', 'session_state'].includes(key),
    );
    expect(issued.sort()).toEqual(expected);
    if (params.token_type)
      expect(params).toMatchObject({ token_type: 'Bearer', expires_in: '600' });
  });

  it('binds the id_token to the nonce, the code and the access token', async () => {
    const { params } = clientParams(await b.signIn({ response_type: 'code id_token token' }));
    const claims = decodeJwt(params.id_token ?? '');
    expect(claims).toMatchObject({
      iss: h.issuer(),
      sub: 'alice',
      aud: 'web-app',
      azp: 'web-app',
      nonce: 'nonce-123',
      auth_time: h.nowSeconds(),
      at_hash: expect.any(String),
      c_hash: expect.any(String),
      sid: expect.any(String),
    });
    expect(claims.name).toBeUndefined();
  });

  it('puts the scope claims in the id_token when no access token is issued', async () => {
    const { params } = clientParams(
      await b.signIn({ response_type: 'id_token', scope: 'openid profile email' }),
    );
    expect(decodeJwt(params.id_token ?? '')).toMatchObject({
      name: 'Alice Liddell',
      email: 'alice@example.com',
      email_verified: true,
    });
  });

  it('accepts the parts of a response type in any order', async () => {
    const { params } = clientParams(await b.signIn({ response_type: 'token id_token' }));
    expect(params.access_token).toBeDefined();
  });

  it('takes the default scopes when scope is omitted', async () => {
    const { params } = clientParams(await b.signIn({ response_type: 'code token', scope: '' }));
    expect(params.scope).toBe('openid profile');
  });

  it('answers a POSTed authorization request with 303', async () => {
    const response = await h.post('/oauth/test/authorize', {
      response_type: 'code',
      client_id: 'web-app',
      redirect_uri: WEB_REDIRECT_URI,
      code_challenge: 'JxaoggWE3_JouxrySheB-QXvqWYOfCFMUvaVBuJxIMs',
      code_challenge_method: 'S256',
    });
    expect(response.status).toBe(303);
    expect(isInteraction(h, response)).toBe(true);
  });
});

describe('bounds on what an anonymous request may park in the store', () => {
  it.each(['state', 'nonce', 'login_hint', 'ui_locales', 'acr_values'])(
    'refuses a %s longer than its limit, without echoing it',
    async (name) => {
      const response = await b.authorize({ [name]: 'x'.repeat(2049) });
      const { params } = clientParams(response);
      expect(params.error).toBe('invalid_request');
      expect(params.error_description).toContain(name);
      expect(response.headers.location?.length).toBeLessThan(2048);
      expect(h.store.writesTo('interaction')).toEqual([]);
    },
  );
});

describe('ID tokens in the front channel', () => {
  it('carries no user claims when the code will bring an access token (code id_token)', async () => {
    const { params } = clientParams(
      await b.signIn({ response_type: 'code id_token', scope: 'openid profile email' }),
    );
    const claims = decodeJwt(params.id_token ?? '');
    expect(claims.sub).toBe('alice');
    expect(claims.name).toBeUndefined();
    expect(claims.email).toBeUndefined();
  });
});
