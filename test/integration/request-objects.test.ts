import { type CryptoKey, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { clientKeyPair, SECRETS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams, S256_CHALLENGE } from './browser.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  type TestResponse,
} from './harness.js';

const keys = await clientKeyPair('ES256', 'jar-key');
const SECRET = new TextEncoder().encode(SECRETS.web);

let h: Harness;
let b: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    realm: { request_object_signing_alg_values_supported: ['ES256', 'HS256'] },
    extraClients: [
      {
        client_id: 'jar-app',
        token_endpoint_auth_method: 'none',
        redirect_uris: [WEB_REDIRECT_URI],
        scope: 'openid profile',
        jwks: { keys: [keys.publicJwk as never] },
      },
    ],
  });
  b = browser(h);
});

/** The request web-app (or jar-app) signs, prompt=none so that the answer comes straight back. */
const REQUEST = {
  response_type: 'code',
  redirect_uri: WEB_REDIRECT_URI,
  scope: 'openid profile',
  state: 'inside',
  nonce: 'nonce-123',
  code_challenge: S256_CHALLENGE,
  code_challenge_method: 'S256',
  prompt: 'none',
};

interface Signing {
  clientId?: string;
  claims?: Record<string, unknown>;
  key?: CryptoKey | Uint8Array;
  alg?: string;
  expiresIn?: number;
}

function sign({
  clientId = 'web-app',
  claims = {},
  key = SECRET,
  alg = 'HS256',
  expiresIn = 60,
}: Signing = {}) {
  return new SignJWT({ ...REQUEST, client_id: clientId, iss: clientId, aud: h.issuer(), ...claims })
    .setProtectedHeader({ alg, typ: 'oauth-authz-req+jwt' })
    .setIssuedAt(h.nowSeconds())
    .setExpirationTime(h.nowSeconds() + expiresIn)
    .sign(key);
}

const unsigned = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

const authorize = (fields: Record<string, string>) =>
  b.visit(`${h.issuer()}/authorize?${new URLSearchParams(fields)}`);

function expectShown(response: TestResponse, error: string): void {
  expect(response.status).toBe(400);
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toContain(`<code id="error">${error}</code>`);
}

describe('signed request objects at the authorization endpoint (RFC 9101)', () => {
  it('takes an HS256 object signed with the client secret, and only its parameters', async () => {
    const request = await sign();
    const response = await authorize({
      client_id: 'web-app',
      request,
      state: 'outside',
      scope: 'openid admin',
    });
    expect(clientParams(response).params).toMatchObject({
      error: 'login_required',
      state: 'inside',
    });
  });

  it('takes an ES256 object signed with a registered key', async () => {
    const request = await sign({ clientId: 'jar-app', key: keys.privateKey, alg: 'ES256' });
    const response = await authorize({ client_id: 'jar-app', request });
    expect(clientParams(response).params).toMatchObject({
      error: 'login_required',
      state: 'inside',
    });
  });

  it.each([
    ['alg none', async () => unsigned({ ...REQUEST, iss: 'web-app', aud: 'x' })],
    ['another client’s key', async () => sign({ key: new TextEncoder().encode('y'.repeat(32)) })],
    ['a wrong aud', async () => sign({ claims: { aud: 'https://other.example.com' } })],
    ['a wrong iss', async () => sign({ claims: { iss: 'jar-app' } })],
    ['an expired object', async () => sign({ expiresIn: -120 })],
    ['an object that lives too long', async () => sign({ expiresIn: 7200 })],
    [
      'an object expiring more than an hour after its nbf',
      async () => sign({ claims: { nbf: h.nowSeconds() - 3000 }, expiresIn: 1000 }),
    ],
    ['a jti that is not a string', async () => sign({ claims: { jti: 42 } })],
    ['an algorithm the realm does not allow', async () => sign({ alg: 'HS512' })],
    ['another client_id inside', async () => sign({ claims: { client_id: 'jar-app' } })],
  ])('refuses %s with invalid_request_object, at the provider', async (_, object) => {
    const response = await authorize({ client_id: 'web-app', request: await object() });
    expectShown(response, 'invalid_request_object');
  });

  it('refuses a client_id outside that is not the signer', async () => {
    const request = await sign();
    expectShown(await authorize({ client_id: 'jar-app', request }), 'invalid_request_object');
    expectShown(await authorize({ request }), 'invalid_client_id');
  });

  it('takes an object with a jti once; the same jti of another client is its own', async () => {
    const jti = 'jti-used-once';
    const request = await sign({ claims: { jti } });
    expect(clientParams(await authorize({ client_id: 'web-app', request })).params.error).toBe(
      'login_required',
    );
    const replayed = await authorize({ client_id: 'web-app', request });
    expectShown(replayed, 'invalid_request_object');
    expect(replayed.body).toContain('the request object was used before');
    // Pushing it after its use is a replay too: one record of used jtis for both endpoints.
    const pushed = await h.postAs('web-app', endpointPath('par'), { request });
    expectOAuthError(pushed, 400, 'invalid_request_object');
    expect(pushed.json().error_description).toBe('the request object was used before');

    const other = await sign({
      clientId: 'jar-app',
      key: keys.privateKey,
      alg: 'ES256',
      claims: { jti },
    });
    expect(
      clientParams(await authorize({ client_id: 'jar-app', request: other })).params.error,
    ).toBe('login_required');
  });

  it('refuses a response_type outside that differs from the one inside', async () => {
    const request = await sign();
    const response = await authorize({ client_id: 'web-app', request, response_type: 'id_token' });
    expectShown(response, 'invalid_request_object');
  });

  it('refuses a request_uri that is not a pushed request', async () => {
    const response = await authorize({
      ...REQUEST,
      client_id: 'web-app',
      state: 'state-123',
      request_uri: 'https://app.example.com/request.jwt',
    });
    expect(clientParams(response).params.error).toBe('request_uri_not_supported');
  });

  it('advertises the algorithms in discovery', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata).toMatchObject({
      request_parameter_supported: true,
      request_uri_parameter_supported: true,
      request_object_signing_alg_values_supported: ['ES256', 'HS256'],
    });
  });
});

describe('a signed request object pushed (PAR + JAR)', () => {
  it('is verified at the PAR endpoint and its parameters are the pushed request', async () => {
    const request = await sign();
    const pushed = await h.postAs('web-app', endpointPath('par'), { request });
    expect(pushed.status).toBe(201);
    const requestUri = pushed.json().request_uri as string;
    const response = await authorize({ client_id: 'web-app', request_uri: requestUri });
    expect(clientParams(response).params).toMatchObject({
      error: 'login_required',
      state: 'inside',
    });
  });

  it('is refused at the PAR endpoint when it is not signed', async () => {
    const request = unsigned({ ...REQUEST, iss: 'web-app', aud: h.issuer() });
    const pushed = await h.postAs('web-app', endpointPath('par'), { request });
    expectOAuthError(pushed, 400, 'invalid_request_object');
  });
});
