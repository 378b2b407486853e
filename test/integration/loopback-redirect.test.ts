import { beforeAll, describe, expect, it } from 'vitest';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER } from './browser.js';
import {
  createHarness,
  expectOAuthError,
  type Harness,
  type TestResponse,
  TOKEN,
} from './harness.js';

// RFC 8252 §7.3: a native app listens on a loopback port the system picked when it starts, so
// only the port of its registered loopback redirect URI is free; a web client's never is.

const CLI = 'cli-app';
const REGISTERED = 'http://127.0.0.1/callback';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: CLI,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: [REGISTERED, 'http://[::1]/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile',
      },
      {
        client_id: 'local-web',
        client_secret: 'local-web-secret-0123',
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: ['http://127.0.0.1:3000/callback'],
      },
    ],
  });
});

/** Signs alice in for the CLI with `redirectUri`; the client's view of the final redirect. */
async function signInTo(redirectUri: string, clientId = CLI): Promise<TestResponse> {
  return browser(h).signIn({ client_id: clientId, redirect_uri: redirectUri });
}

function callbackParams(response: TestResponse, redirectUri: string): Record<string, string> {
  const location = response.headers.location ?? '';
  expect(response.status, response.body).toBe(302);
  expect(location.startsWith(`${redirectUri}?`), location).toBe(true);
  return Object.fromEntries(new URL(location).searchParams);
}

const exchange = (code: string, redirectUri: string) =>
  h.post(TOKEN, {
    grant_type: 'authorization_code',
    client_id: CLI,
    code,
    redirect_uri: redirectUri,
    code_verifier: CODE_VERIFIER,
  });

describe('a native client on a loopback redirect URI', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:51234/callback'],
    ['[::1]', 'http://[::1]:40001/callback'],
  ])('signs in from an ephemeral port on %s and exchanges the code there', async (_, uri) => {
    const params = callbackParams(await signInTo(uri), uri);
    expect(params).toMatchObject({ code: expect.any(String), iss: h.issuer() });

    const tokens = await exchange(params.code ?? '', uri);
    expect(tokens.status, tokens.body).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
  });

  it.each([
    ['another port', 'http://127.0.0.1:51235/callback'],
    ['the registered URI, without the port', REGISTERED],
  ])('refuses the code at the token endpoint with %s than the request used', async (_, other) => {
    const uri = 'http://127.0.0.1:51234/callback';
    const { code } = callbackParams(await signInTo(uri), uri);
    expectOAuthError(await exchange(code ?? '', other), 400, 'invalid_grant');
  });
});

describe('redirect URIs that are not registered stay at the provider', () => {
  it.each([
    [CLI, 'another host', 'http://127.0.0.2:51234/callback'],
    [CLI, 'another path', 'http://127.0.0.1:51234/other'],
    [CLI, 'https to the loopback host', 'https://127.0.0.1:51234/callback'],
    [CLI, 'localhost for a registered 127.0.0.1', 'http://localhost:51234/callback'],
    [CLI, 'userinfo naming the loopback host', 'http://127.0.0.1@evil.example/callback'],
    [CLI, 'userinfo after a port', 'http://127.0.0.1:51234@evil.example/callback'],
    ['local-web', 'a web client on another port', 'http://127.0.0.1:3001/callback'],
    ['web-app', 'a web client on an explicit port', WEB_REDIRECT_URI.replace('.com/', '.com:443/')],
  ])('%s: %s', async (clientId, _, uri) => {
    const response = await browser(h).authorize({ client_id: clientId, redirect_uri: uri });
    expect(response.status).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('<code id="error">invalid_redirect_uri</code>');
  });
});
