import { beforeEach, describe, expect, it } from 'vitest';
import { SECRETS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, clientParams, isInteraction, S256_CHALLENGE } from './browser.js';
import {
  basicAuthorization,
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  type HarnessOptions,
  type TestResponse,
  TOKEN,
} from './harness.js';

const PAR = endpointPath('par');
const URN = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;

let h: Harness;
let b: ReturnType<typeof browser>;

async function start(options: HarnessOptions = {}) {
  h = await createHarness(options);
  b = browser(h);
}
beforeEach(() => start());

/** The authorization request web-app's backend pushes. */
const REQUEST = {
  response_type: 'code',
  redirect_uri: WEB_REDIRECT_URI,
  scope: 'openid profile',
  state: 'state-123',
  nonce: 'nonce-123',
  code_challenge: S256_CHALLENGE,
  code_challenge_method: 'S256',
};

const push = (fields: Record<string, string> = {}, clientId = 'web-app') =>
  h.postAs(clientId, PAR, { ...REQUEST, ...fields });

async function pushed(fields: Record<string, string> = {}): Promise<string> {
  const response = await push(fields);
  expect(response.status).toBe(201);
  return response.json().request_uri as string;
}

const authorizeWith = (requestUri: string, clientId = 'web-app') =>
  b.visit(
    `${h.issuer()}/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`,
  );

function expectShown(response: TestResponse, error: string): void {
  expect(response.status).toBe(400);
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toContain(`<code id="error">${error}</code>`);
}

describe('the PAR endpoint (RFC 9126)', () => {
  it('answers 201 with a one-time URN of 256 random bits and a 60-second life, uncached', async () => {
    const response = await push();
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ request_uri: expect.stringMatching(URN), expires_in: 60 });
  });

  it.each([
    ['no credentials', { client_id: 'web-app' }, {}],
    ['a wrong secret', { client_id: 'web-app', client_secret: 'x'.repeat(32) }, {}],
    [
      'another method than registered',
      {},
      { authorization: basicAuthorization('web-app', SECRETS.web) },
    ],
  ])('refuses %s exactly as the token endpoint does', async (_, fields, headers) => {
    const atPar = await h.post(PAR, { ...REQUEST, ...fields }, headers);
    const atToken = await h.post(TOKEN, { grant_type: 'client_credentials', ...fields }, headers);
    expect(atPar.json().error).toBe('invalid_client');
    const seen = (r: TestResponse) => [r.status, r.json(), r.headers['www-authenticate']];
    expect(seen(atPar)).toEqual(seen(atToken));
  });

  it.each([
    [
      'a request_uri inside',
      { request_uri: 'urn:ietf:params:oauth:request_uri:x' },
      'invalid_request',
    ],
    [
      'an unregistered redirect_uri',
      { redirect_uri: 'https://evil.example/cb' },
      'invalid_request',
    ],
    ['no redirect_uri', { redirect_uri: '' }, 'invalid_request'],
    ['a scope not allowed', { scope: 'openid admin' }, 'invalid_scope'],
    ['no code_challenge', { code_challenge: '' }, 'invalid_code_challenge'],
    ['a bad prompt', { prompt: 'none login' }, 'invalid_request'],
  ])('refuses %s with the authorization endpoint’s rule, as JSON', async (_, fields, error) => {
    const response = await push(fields);
    expectOAuthError(response, 400, error);
    expect(response.headers.location).toBeUndefined();
  });

  it('is not readable cross-origin and answers only POST', async () => {
    const response = await push({}, 'web-app');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect((await h.get(PAR)).status).toBe(405);
  });

  it('is in discovery, with request_uri support for its URNs only', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata).toMatchObject({
      pushed_authorization_request_endpoint: `${h.issuer()}/par`,
      require_pushed_authorization_requests: false,
      request_uri_parameter_supported: true,
    });
  });
});

describe('the authorization endpoint with a pushed request', () => {
  it('starts the sign-in with the pushed parameters', async () => {
    const requestUri = await pushed();
    const response = await authorizeWith(requestUri);
    expect(isInteraction(h, response)).toBe(true);
    expect((await b.details(response))?.scopes).toEqual(['openid', 'profile']);
  });

  it('uses only the pushed parameters: those beside request_uri are ignored', async () => {
    const requestUri = await pushed({ state: 'pushed-state', prompt: 'none' });
    const outside = { state: 'outside', scope: 'openid admin', response_mode: 'fragment' };
    const response = await b.visit(
      `${h.issuer()}/authorize?${new URLSearchParams({ client_id: 'web-app', request_uri: requestUri, ...outside })}`,
    );
    const { params } = clientParams(response);
    expect(params).toMatchObject({ error: 'login_required', state: 'pushed-state' });
  });

  it('takes a request_uri once: a second use is refused at the provider', async () => {
    const requestUri = await pushed({ prompt: 'none' });
    expect(clientParams(await authorizeWith(requestUri)).params.error).toBe('login_required');
    expectShown(await authorizeWith(requestUri), 'invalid_request_uri');
  });

  it('refuses a request_uri after its 60 seconds', async () => {
    const requestUri = await pushed();
    h.clock.advance(61);
    expectShown(await authorizeWith(requestUri), 'invalid_request_uri');
  });

  it('refuses a request_uri presented with another client_id, or with none', async () => {
    await start({
      extraClients: [
        {
          client_id: 'other-app',
          client_secret: 'other-app-secret-0123456789',
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: [WEB_REDIRECT_URI],
          scope: 'openid profile',
        },
      ],
    });
    const requestUri = await pushed({ prompt: 'none' });
    expectShown(await authorizeWith(requestUri, 'other-app'), 'invalid_request_uri');
    expectShown(await authorizeWith(requestUri, ''), 'invalid_request_uri');
  });

  it('refuses an unknown URN', async () => {
    expectShown(
      await authorizeWith(`urn:ietf:params:oauth:request_uri:${'A'.repeat(43)}`),
      'invalid_request_uri',
    );
  });
});

describe('require_pushed_authorization_requests', () => {
  it('of the realm: a request not pushed is refused, a pushed one goes on', async () => {
    await start({ realm: { require_pushed_authorization_requests: true } });
    const direct = clientParams(await b.authorize({ prompt: 'none' }));
    expect(direct.params).toMatchObject({ error: 'invalid_request', state: 'state-123' });
    const requestUri = await pushed({ prompt: 'none' });
    expect(clientParams(await authorizeWith(requestUri)).params.error).toBe('login_required');
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.require_pushed_authorization_requests).toBe(true);
  });

  it('of a client: that client only', async () => {
    await start({
      extraClients: [
        {
          client_id: 'par-app',
          client_secret: 'par-app-secret-0123456789',
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: [WEB_REDIRECT_URI],
          scope: 'openid profile',
          require_pushed_authorization_requests: true,
        },
      ],
    });
    const refused = clientParams(await b.authorize({ client_id: 'par-app', prompt: 'none' }));
    expect(refused.params.error).toBe('invalid_request');
    expect(clientParams(await b.authorize({ prompt: 'none' })).params.error).toBe('login_required');
    const response = await h.post(PAR, {
      ...REQUEST,
      prompt: 'none',
      client_id: 'par-app',
      client_secret: 'par-app-secret-0123456789',
    });
    expect(response.status).toBe(201);
    const requestUri = response.json().request_uri as string;
    expect(clientParams(await authorizeWith(requestUri, 'par-app')).params.error).toBe(
      'login_required',
    );
  });
});
