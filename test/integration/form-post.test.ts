import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams, formPostOf } from './browser.js';
import { createHarness, endpointPath, type Harness, type TestResponse } from './harness.js';

let h: Harness;
let b: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'query-only',
        client_secret: 'query-only-secret-0123456789',
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [WEB_REDIRECT_URI],
        response_modes: ['query', 'fragment'],
        grant_types: ['authorization_code'],
      },
    ],
  });
  b = browser(h);
});

/** The page's CSP: one script, allowed by the hash of exactly the script the page holds. */
function expectFormPostPage(response: TestResponse): void {
  expect(response.status).toBe(200);
  expect(response.headers.location).toBeUndefined();
  expect(response.headers).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  });
  const csp = response.headers['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  const scripts = [...(response.body ?? '').matchAll(/<script>(.*?)<\/script>/gs)];
  expect(scripts).toHaveLength(1);
  const hash = createHash('sha256')
    .update(scripts[0]?.[1] ?? '')
    .digest('base64');
  expect(csp).toContain(`script-src 'sha256-${hash}'`);
  // Without JavaScript the user sends the form with a visible button.
  expect(response.body).toMatch(/<form method="post" action="[^"]*">.*<button type="submit">/s);
}

describe('response_mode=form_post', () => {
  it('answers a code with a page that posts code, state, session_state and iss to the redirect URI', async () => {
    const response = await b.signIn({ response_mode: 'form_post' });
    expectFormPostPage(response);
    const { mode, params } = clientParams(response);
    expect(mode).toBe('form_post');
    expect(params).toEqual({
      code: expect.any(String),
      session_state: expect.any(String),
      state: 'state-123',
      iss: h.issuer(),
    });
  });

  it('sets the session cookie of a login with the page', async () => {
    await b.signIn();
    // Consent is remembered: the login's resume answers the client at once.
    const response = await b.signIn({ response_mode: 'form_post', prompt: 'login' });
    expectFormPostPage(response);
    expect(response.cookies?.some((cookie) => cookie.startsWith('__Host-gh_session-test='))).toBe(
      true,
    );
    // Single sign-on afterwards, still by form_post.
    const again = await b.authorize({ response_mode: 'form_post', prompt: 'none' });
    expect(clientParams(again).params.code).toEqual(expect.any(String));
  });

  it('posts an id_token (the response of express-openid-connect’s default configuration)', async () => {
    const response = await b.signIn({
      response_type: 'id_token',
      response_mode: 'form_post',
      code_challenge: '',
      code_challenge_method: '',
    });
    expectFormPostPage(response);
    const { params } = clientParams(response);
    expect(decodeJwt(params.id_token ?? '')).toMatchObject({ nonce: 'nonce-123', aud: 'web-app' });
    expect(params.access_token).toBeUndefined();
  });

  it('posts the tokens of a hybrid response', async () => {
    const { params } = clientParams(
      await b.signIn({ response_type: 'code id_token token', response_mode: 'form_post' }),
    );
    expect(Object.keys(params).sort()).toEqual(
      [
        'access_token',
        'code',
        'expires_in',
        'id_token',
        'iss',
        'scope',
        'session_state',
        'state',
        'token_type',
      ].sort(),
    );
  });

  it('posts an error the client may hear about', async () => {
    const response = await b.authorize({ response_mode: 'form_post', scope: 'openid admin' });
    expectFormPostPage(response);
    expect(clientParams(response).params).toEqual({
      error: 'invalid_scope',
      error_description: expect.any(String),
      state: 'state-123',
      iss: h.issuer(),
    });
  });

  it('posts login_required for prompt=none without a session', async () => {
    const { mode, params } = clientParams(
      await b.authorize({ response_mode: 'form_post', prompt: 'none' }),
    );
    expect({ mode, error: params.error }).toEqual({ mode: 'form_post', error: 'login_required' });
  });

  it('escapes every value it writes into the page', async () => {
    const state = '"><script>alert(1)</script>&amp;';
    const response = await b.authorize({ response_mode: 'form_post', prompt: 'none', state });
    expect(response.body).not.toContain('<script>alert');
    expect(formPostOf(response)?.params.state).toBe(state);
  });

  it('falls back to the default mode, with invalid_response_mode, for a client not allowed form_post', async () => {
    const response = await b.authorize({
      client_id: 'query-only',
      response_mode: 'form_post',
      code_challenge: '',
      code_challenge_method: '',
      scope: 'openid',
    });
    const { mode, params } = clientParams(response);
    expect({ mode, error: params.error }).toEqual({
      mode: 'query',
      error: 'invalid_response_mode',
    });
  });

  it('is offered by discovery and allowed to clients by default', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.response_modes_supported).toEqual(['query', 'fragment', 'form_post']);
    const realm = await h.provider.realm('test');
    expect(realm?.clients.get('web-app')?.config.response_modes).toContain('form_post');
  });
});
