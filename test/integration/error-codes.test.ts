import { beforeAll, describe, expect, it } from 'vitest';
import { FORM_HEADERS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { AUTHORIZE, browser, clientParams } from './browser.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  INTROSPECT,
  REVOKE,
  type TestResponse,
  TOKEN,
} from './harness.js';

/** RFC 6749 §4.1.2.1, §5.2: what an error_description may hold. */
const DESCRIPTION = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

let h: Harness;
/** The same realm, set up as one that must pass the OpenID certification tests. */
let registered: Harness;
beforeAll(async () => {
  h = await createHarness();
  registered = await createHarness({ realm: { error_codes: 'registered' } });
});

const query = (params: Record<string, string>) =>
  `${new URLSearchParams({
    response_type: 'code',
    client_id: 'web-app',
    redirect_uri: WEB_REDIRECT_URI,
    scope: 'openid',
    state: 'state-123',
    code_challenge: 'JxaoggWE3_JouxrySheB-QXvqWYOfCFMUvaVBuJxIMs',
    code_challenge_method: 'S256',
    ...params,
  })}`;

describe('realm error_codes', () => {
  it.each([
    [
      'nonce_required',
      'invalid_request',
      { response_type: 'id_token', code_challenge: '', nonce: '' },
    ],
    ['invalid_response_type', 'unsupported_response_type', { response_type: 'token' }],
    ['invalid_response_mode', 'invalid_request', { response_mode: 'web_message' }],
    ['invalid_code_challenge', 'invalid_request', { code_challenge: 'short' }],
    ['invalid_code_challenge_method', 'invalid_request', { code_challenge_method: 'plain' }],
  ])('redirects %s as %s in a "registered" realm', async (code, registeredCode, params) => {
    const sent = async (harness: Harness) =>
      clientParams(await browser(harness).authorize(params)).params.error;
    expect(await sent(h)).toBe(code);
    expect(await sent(registered)).toBe(registeredCode);
  });

  it.each([
    ['invalid_client_id', { client_id: 'nobody' }],
    ['invalid_redirect_uri', { redirect_uri: 'https://evil.example/cb' }],
  ])('shows %s as invalid_request in a "registered" realm', async (code, params) => {
    const shown = async (harness: Harness) => (await browser(harness).authorize(params)).body ?? '';
    expect(await shown(h)).toContain(`<code id="error">${code}</code>`);
    expect(await shown(registered)).toContain('<code id="error">invalid_request</code>');
  });

  it('leaves the codes of the token endpoint, which are registered ones already, alone', async () => {
    const response = await registered.postAs('web-app', TOKEN, {
      grant_type: 'authorization_code',
      code: 'nope',
      redirect_uri: WEB_REDIRECT_URI,
    });
    expectOAuthError(response, 400, 'invalid_grant');
  });
});

describe('repeated parameters at the authorization endpoint', () => {
  const visit = (harness: Harness, search: string) => harness.get(AUTHORIZE, {}, search);

  it('redirects invalid_request to a trusted client, with the state when it was sent once', async () => {
    const { mode, params } = clientParams(await visit(h, `${query({})}&scope=profile`));
    expect(mode).toBe('query');
    expect(params).toEqual({
      error: 'invalid_request',
      error_description: 'a parameter is repeated',
      state: 'state-123',
      iss: h.issuer(),
    });
  });

  it('never echoes a repeated state: neither value can be told to be the client’s', async () => {
    const { params } = clientParams(await visit(h, `${query({})}&state=attacker`));
    expect(params).toEqual({
      error: 'invalid_request',
      error_description: 'a parameter is repeated',
      iss: h.issuer(),
    });
  });

  it('answers in the default mode when response_mode is repeated', async () => {
    const search = `${query({ response_mode: 'fragment' })}&response_mode=form_post`;
    expect(clientParams(await visit(h, search)).mode).toBe('query');
  });

  it('redirects a repeated parameter of a POSTed request with 303', async () => {
    const posted = await h.provider.handle({
      method: 'POST',
      path: AUTHORIZE,
      query: '',
      headers: FORM_HEADERS,
      body: `${query({})}&nonce=a&nonce=b`,
    });
    expect(posted.status).toBe(303);
    expect(new URL(posted.headers.location ?? '').searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it.each(['client_id', 'redirect_uri'])(
    'shows the error at the provider when %s is repeated',
    async (name) => {
      const value = name === 'client_id' ? 'web-app' : WEB_REDIRECT_URI;
      const search = `${query({})}&${name}=${encodeURIComponent(value)}`;
      const response = await visit(h, search);
      expect(response.status).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('<code id="error">invalid_request</code>');
    },
  );
});

/** Request values no description may quote, whatever the parameter they are sent in. */
const HOSTILE = [
  '"><script>alert(1)</script>zq7',
  'zq7\\"quoted\\"',
  'zq7 caf\u00e9 \u202e\u0000',
  `zq7${'A'.repeat(300)}`,
];

/** The error descriptions an answer carries: JSON, a redirect, a form post page or an error page. */
function descriptionsOf(response: TestResponse): string[] {
  const type = response.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const description = response.json()?.error_description;
    return typeof description === 'string' ? [description] : [];
  }
  const challenge = response.headers['www-authenticate'];
  const fromChallenge = challenge ? [/error_description="([^"]*)"/.exec(challenge)?.[1] ?? ''] : [];
  if (type.startsWith('text/html')) {
    const shown = /<p id="error_description">([^<]*)<\/p>/.exec(response.body ?? '')?.[1];
    return [...fromChallenge, ...(shown === undefined ? [] : [shown])];
  }
  const location = response.headers.location;
  if (location?.startsWith(WEB_REDIRECT_URI)) {
    const description = clientParams(response).params.error_description;
    return description === undefined ? fromChallenge : [...fromChallenge, description];
  }
  return fromChallenge;
}

function expectNoEcho(response: TestResponse): void {
  for (const description of descriptionsOf(response)) {
    expect(description).toMatch(DESCRIPTION);
    expect(description).not.toContain('zq7');
    expect(description).not.toContain('script');
  }
  // A page may escape what it shows, but must not show these values at all.
  if (response.headers['content-type']?.startsWith('text/html')) {
    expect(response.body).not.toContain('zq7');
  }
}

describe('no error description quotes the request', () => {
  const AUTHORIZATION_PARAMETERS = [
    'response_type',
    'scope',
    'response_mode',
    'prompt',
    'max_age',
    'resource',
    'code_challenge',
    'code_challenge_method',
    'nonce',
    'client_id',
    'redirect_uri',
    'acr_values',
    'claims',
    'id_token_hint',
    'request',
  ];

  it.each(HOSTILE)('at the authorization endpoint, in any parameter: %j', async (value) => {
    for (const name of AUTHORIZATION_PARAMETERS) {
      expectNoEcho(await h.get(AUTHORIZE, {}, query({ [name]: value })));
      expectNoEcho(await h.get(AUTHORIZE, {}, `${query({ [name]: value })}&${name}=again`));
    }
  });

  it.each(HOSTILE)('at the token endpoint, in any parameter: %j', async (value) => {
    const fields = {
      grant_type: 'authorization_code',
      code: 'c',
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: 'v'.repeat(43),
      refresh_token: 'r',
      scope: 'openid',
      resource: 'https://api.example.com',
      client_assertion_type: 'x',
    };
    for (const name of [...Object.keys(fields), 'client_id', 'client_secret', 'zq7name']) {
      for (const grant of ['authorization_code', 'refresh_token', 'client_credentials']) {
        const body = { ...fields, grant_type: grant, [name]: value };
        expectNoEcho(await h.postAs('web-app', TOKEN, body));
        expectNoEcho(await h.postAs('post-client', TOKEN, body));
      }
    }
  });

  it.each(HOSTILE)('at introspection, revocation, userinfo and logout: %j', async (value) => {
    for (const path of [INTROSPECT, REVOKE]) {
      expectNoEcho(await h.postAs('api', path, { token: value }));
      expectNoEcho(await h.postAs('api', path, { token: 'x', token_type_hint: value }));
      expectNoEcho(await h.post(path, { token: 'x', client_id: value, client_secret: value }));
    }
    const userinfo = endpointPath('userinfo');
    expectNoEcho(await h.get(userinfo, { authorization: `Bearer ${value}` }));
    expectNoEcho(
      await h.get(userinfo, {}, new URLSearchParams({ access_token: value }).toString()),
    );
    for (const name of ['id_token_hint', 'post_logout_redirect_uri', 'client_id']) {
      const search = new URLSearchParams({ [name]: value }).toString();
      expectNoEcho(await h.get(endpointPath('logout'), {}, search));
    }
  });
});
