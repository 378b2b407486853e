import type { ClientInput } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import {
  clientKeyPair,
  FORM_HEADERS,
  form,
  SECRETS,
  testRealm,
  WEB_LOGOUT_URI,
  WEB_REDIRECT_URI,
} from '../support/fixtures.js';
import { leftHalfSha256 } from '../support/token-hash.js';
import {
  AUTHORIZE,
  browser,
  clientParams,
  S256_CHALLENGE,
  CODE_VERIFIER as VICTIM_VERIFIER,
} from './browser.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  type TestResponse,
  TOKEN,
} from './harness.js';
import {
  CODE_VERIFIER as ATTACKER_VERIFIER,
  exchange,
  exchangeAs,
  isActive,
  refresh,
  SECOND_APP,
} from './user-grants.js';

/**
 * The attacks of RFC 9700 (Best Current Practice for OAuth 2.0 Security) §4 that apply to an
 * authorization server, each in its own `describe` played against real sign-ins: a victim's
 * browser signs in and consents, an attacker holds what the attack gives them. Where a defence is
 * already tested in depth elsewhere, the test here is the attack itself and the comment says where
 * the rest lives.
 *
 *   §4.1   insufficient redirect URI validation  here (the cases of docs/interface.md §7.1:
 *                                                authorization-request.test.ts)
 *   §4.2   credential leakage via Referer        here
 *   §4.3   credential leakage via browser history here (code replay, tokens in the query)
 *   §4.4   mix-up                                here (the relying party's side: e2e/browser-flows)
 *   §4.5   authorization code injection          here
 *   §4.6   access token injection                the client's check of at_hash; the claim itself:
 *                                                authorization-request.test.ts, e2e/browser-flows
 *   §4.7   CSRF                                  here (state); the interaction is bound to the
 *                                                browser that started it: authorization-session
 *   §4.8   PKCE downgrade                        here (no fallback to `plain`: authorization-request)
 *   §4.9   access token leakage at the resource  audience-restricted tokens (`resource` → `aud`)
 *   §4.10  misuse of stolen access tokens        and introspection only by that resource:
 *                                                authorization-code-grant, introspection tests;
 *                                                sender-constrained tokens are not offered
 *   §4.11  open redirection                      here
 *   §4.12  307 redirect                          here
 *   §4.13  TLS-terminating reverse proxies       every URL from the configured base URL, none from
 *                                                request headers: e2e/openid-client discovery
 *   §4.14  refresh token protection              here (client binding: refresh-token-grant)
 *   §4.15  client impersonating resource owner   not applicable: clients are registered by the
 *                                                administrator and cannot choose their client_id
 *   §4.16  clickjacking                          here
 *   §4.17  in-browser communication flows        not applicable: no postMessage response modes
 */

/** A client without PKCE (require_pkce off), registered with two redirect URIs. */
const LEGACY_APP = {
  client_id: 'legacy-app',
  client_secret: 'legacy-secret-0123456789abcdef',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI, 'https://app.example.com/other-cb'],
  response_types: ['code', 'code id_token'],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile',
  require_pkce: false,
} as const satisfies ClientInput;
const [, LEGACY_OTHER_URI] = LEGACY_APP.redirect_uris;

/** Authorization requests of legacy-app: no code_challenge (empty values are absent). */
const LEGACY = { client_id: LEGACY_APP.client_id, code_challenge: '', code_challenge_method: '' };

/** Every response type that puts a token (access token or ID token) in the redirect. */
const TOKEN_RESPONSE_TYPES = [
  'id_token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
];

let h: Harness;
/** The victim's browser. */
let victim: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [LEGACY_APP, SECOND_APP],
    otherRealms: [testRealm(await clientKeyPair(), { name: 'second' })],
  });
  victim = browser(h);
});

/** The code in the response to the client; fails the test when there is none. */
function codeOf(response: TestResponse): string {
  const { code } = clientParams(response).params;
  if (code === undefined) throw new Error(`no code in ${response.headers.location}`);
  return code;
}

/** Redeems a code as legacy-app (no PKCE). */
const legacyExchange = (code: string, fields: Record<string, string> = {}) =>
  h.post(TOKEN, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT_URI,
    client_id: LEGACY_APP.client_id,
    client_secret: LEGACY_APP.client_secret,
    ...fields,
  });

/** web-app redeems the victim's code with the victim's own verifier. */
const victimExchange = (code: string) => exchange(h, code, { code_verifier: VICTIM_VERIFIER });

/** The token response's body; fails the test unless the request succeeded. */
function tokensOf(response: TestResponse): Record<string, string> {
  expect(response.status, response.body).toBe(200);
  return response.json() as Record<string, string>;
}

/** Shown at the provider: a page, never a redirect anywhere. */
function expectNoRedirect(response: TestResponse, error: string): void {
  expect(response.status).toBe(400);
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toContain(`<code id="error">${error}</code>`);
}

describe('RFC 9700 §4.1: insufficient redirect URI validation', () => {
  /**
   * Every leniency an attacker could use to receive a signed-in victim's code or tokens silently
   * (prompt=none), beyond the plain variants of authorization-request.test.ts: the registered URI
   * is https://app.example.com/cb, matched as an exact string.
   */
  const MANIPULATED: ReadonlyArray<[string, string]> = [
    ['a trailing slash', `${WEB_REDIRECT_URI}/`],
    ['an upper-case host', 'https://APP.example.com/cb'],
    ['an upper-case scheme', 'HTTPS://app.example.com/cb'],
    ['an upper-case path', 'https://app.example.com/CB'],
    ['a percent-encoded path', 'https://app.example.com/%63b'],
    ['a double-encoded path', 'https://app.example.com/%2563b'],
    ['an extra query', `${WEB_REDIRECT_URI}?next=https://evil.example`],
    ['an extra path segment', `${WEB_REDIRECT_URI}/evil`],
    ['dot segments', 'https://app.example.com/evil/../cb'],
    ['the default port spelled out', 'https://app.example.com:443/cb'],
    ['http instead of https', 'http://app.example.com/cb'],
    ['userinfo before the host (@)', 'https://app.example.com@evil.example/cb'],
    ['a backslash and userinfo', 'https://app.example.com\\@evil.example/cb'],
    ['a look-alike subdomain', 'https://app.example.com.evil.example/cb'],
    ['a look-alike host (Cyrillic а)', 'https://\u0430pp.example.com/cb'],
    ['a trailing dot after the host', 'https://app.example.com./cb'],
    ['a javascript: URI', 'javascript://app.example.com/cb%0aalert(document.domain)'],
    ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
    ['trailing whitespace', `${WEB_REDIRECT_URI} `],
    ['a trailing newline', `${WEB_REDIRECT_URI}\n`],
    ['a fragment', `${WEB_REDIRECT_URI}#evil`],
  ];

  it('the victim, signed in and having consented, gets a code silently at the registered URI', async () => {
    await victim.signIn();
    expect(codeOf(await victim.authorize({ prompt: 'none' }))).toEqual(expect.any(String));
  });

  it.each(
    ['code', 'id_token token'].flatMap((responseType) =>
      MANIPULATED.map(([manipulation, uri]) => ({ responseType, manipulation, uri })),
    ),
  )(
    '$responseType with $manipulation: shown at the provider, nothing issued',
    async ({ responseType, uri }) => {
      await victim.signIn({ response_type: responseType });
      const writes = h.store.writes.length;

      const response = await victim.authorize({
        response_type: responseType,
        redirect_uri: uri,
        prompt: 'none',
      });

      expectNoRedirect(response, 'invalid_redirect_uri');
      expect(h.store.writes.slice(writes)).toEqual([]);
    },
  );

  it('a code sent to one registered URI is refused with another registered URI at the token endpoint', async () => {
    const code = codeOf(await victim.signIn(LEGACY));
    const response = await legacyExchange(code, { redirect_uri: LEGACY_OTHER_URI });
    expectOAuthError(response, 400, 'invalid_grant');
  });
});

describe('RFC 9700 §4.2: credential leakage via Referer headers', () => {
  it('the redirect carrying a code, and the one carrying tokens, tell the browser to send no Referer', async () => {
    for (const responseType of ['code', 'code id_token token']) {
      const response = await victim.signIn({ response_type: responseType });
      expect(clientParams(response).params.state).toBe('state-123');
      expect(response.headers).toMatchObject({
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      });
    }
  });
});

describe('RFC 9700 §4.3.1 and RFC 6749 §4.1.2: a leaked code is good for one redemption', () => {
  it('a second redemption fails and revokes every token of the first, refreshed ones included', async () => {
    const code = codeOf(await victim.signIn());
    const first = tokensOf(await victimExchange(code));
    const refreshed = tokensOf(await refresh(h, first.refresh_token ?? ''));
    expect(await isActive(h, first.access_token ?? '')).toBe(true);

    expectOAuthError(await victimExchange(code), 400, 'invalid_grant');

    expect(await isActive(h, first.access_token ?? '')).toBe(false);
    expect(await isActive(h, refreshed.access_token ?? '')).toBe(false);
    expectOAuthError(await refresh(h, refreshed.refresh_token ?? ''), 400, 'invalid_grant');
  });
});

describe('RFC 9700 §4.3.2: tokens never in a query string', () => {
  it.each(TOKEN_RESPONSE_TYPES)(
    '%s: answered in the fragment; response_mode=query is refused, in the fragment, without tokens',
    async (responseType) => {
      const signedIn = await victim.signIn({ response_type: responseType });
      expect(clientParams(signedIn).mode).toBe('fragment');
      expect(new URL(signedIn.headers.location ?? '').search).toBe('');

      const asked = await victim.authorize({
        response_type: responseType,
        response_mode: 'query',
        prompt: 'none',
      });

      const { mode, params } = clientParams(asked);
      expect(mode).toBe('fragment');
      expect(new URL(asked.headers.location ?? '').search).toBe('');
      expect(params.error).toBe('invalid_response_mode');
      for (const credential of ['code', 'access_token', 'id_token']) {
        expect(params[credential]).toBeUndefined();
      }
    },
  );

  it("userinfo refuses a user's access token in the query string", async () => {
    const tokens = tokensOf(await victimExchange(codeOf(await victim.signIn())));
    const userinfo = endpointPath('userinfo');
    const query = new URLSearchParams({ access_token: tokens.access_token ?? '' }).toString();

    const refused = await h.get(userinfo, {}, query);
    expect(refused.status).toBe(400);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_request"');
    const accepted = await h.get(userinfo, { authorization: `Bearer ${tokens.access_token}` });
    expect(accepted.json()).toMatchObject({ sub: 'alice' });
  });

  it.each(['client_secret', 'code', 'code_verifier'])(
    'the token endpoint refuses %s in the query string, and the code stays unspent',
    async (name) => {
      const code = codeOf(await victim.signIn());
      const fields: Record<string, string> = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: VICTIM_VERIFIER,
        client_id: 'web-app',
        client_secret: SECRETS.web,
      };
      const query = new URLSearchParams({ [name]: fields[name] ?? '' });
      const response = await h.provider.handle({
        method: 'POST',
        path: TOKEN,
        query: query.toString(),
        headers: FORM_HEADERS,
        body: form(fields),
      });

      expect(response.status).toBe(400);
      expect(JSON.parse(response.body ?? '')).toMatchObject({ error: 'invalid_request' });
      tokensOf(await victimExchange(code));
    },
  );
});

describe('RFC 9700 §4.4: mix-up — every authorization response names its issuer (RFC 9207)', () => {
  /*
   * Both realms register web-app with the same redirect URI — the case RFC 9700 §4.4.2.1 is for:
   * only `iss` tells the client which realm answered. (A code of one realm is refused at the
   * other's token endpoint: authorization-code-grant.test.ts.)
   */
  type Browser = ReturnType<typeof browser>;
  const RESPONSES: ReadonlyArray<[string, (b: Browser) => Promise<TestResponse>]> = [
    ['a code after login and consent', (b) => b.signIn()],
    [
      'a code by single sign-on',
      async (b) => {
        await b.signIn();
        return b.authorize({ prompt: 'none' });
      },
    ],
    ['tokens in the fragment', (b) => b.signIn({ response_type: 'code id_token token' })],
    ['invalid_scope', (b) => b.authorize({ scope: 'openid admin' })],
    [
      'nonce_required, in the fragment',
      (b) => b.authorize({ response_type: 'id_token', nonce: '' }),
    ],
    ['login_required for prompt=none', (b) => b.authorize({ prompt: 'none' })],
    [
      "access_denied from the host's consent page",
      async (b) => {
        const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
        return b.finish(consent, { error: 'access_denied' });
      },
    ],
  ];

  it.each(
    ['test', 'second'].flatMap((realm) =>
      RESPONSES.map(([response, produce]) => ({ realm, response, produce })),
    ),
  )("realm $realm, $response: iss is the realm's issuer", async ({ realm, produce }) => {
    const { params } = clientParams(await produce(browser(h, new CookieJar(), realm)));
    expect(params.iss).toBe(h.issuer(realm));
    expect(params.state).toBe('state-123');
  });
});

describe('RFC 9700 §4.5: authorization code injection', () => {
  it("with PKCE: the victim's code redeemed in the attacker's session (its code_verifier) → invalid_grant", async () => {
    const code = codeOf(await victim.signIn());
    const accessTokens = () => h.store.writesTo('access_token').length;
    const before = accessTokens();

    const injected = await exchange(h, code, { code_verifier: ATTACKER_VERIFIER });

    expectOAuthError(injected, 400, 'invalid_grant');
    expect(accessTokens()).toBe(before);
  });

  it('the code is bound to its client: another client with the same redirect URI → invalid_grant', async () => {
    const code = codeOf(await victim.signIn());
    const response = await exchangeAs(h, SECOND_APP.client_id, code, {
      code_verifier: VICTIM_VERIFIER,
    });
    expectOAuthError(response, 400, 'invalid_grant');
  });

  /**
   * RFC 9700 §4.5.3.2: a client that does not use PKCE relies on the nonce. The ID token of the
   * token response carries the nonce of the session the code was issued to; the client, holding the
   * attacker's session, expects the attacker's nonce and sees the injection.
   */
  it('without PKCE: the ID token carries the nonce of the session the code was issued to', async () => {
    const victimCode = codeOf(await victim.signIn({ ...LEGACY, nonce: 'victim-nonce' }));
    const attacker = browser(h, new CookieJar());
    const attackerCode = codeOf(
      await attacker.signIn({ ...LEGACY, nonce: 'attacker-nonce' }, 'bob'),
    );

    const injected = tokensOf(await legacyExchange(victimCode));
    const own = tokensOf(await legacyExchange(attackerCode));

    expect(decodeJwt(injected.id_token ?? '')).toMatchObject({
      nonce: 'victim-nonce',
      sub: 'alice',
    });
    expect(decodeJwt(own.id_token ?? '')).toMatchObject({ nonce: 'attacker-nonce', sub: 'bob' });
  });

  it('without PKCE, hybrid: the front-channel ID token binds its code (c_hash) and the nonce', async () => {
    const response = await victim.signIn({ ...LEGACY, response_type: 'code id_token' });
    const { code = '', id_token = '' } = clientParams(response).params;

    expect(decodeJwt(id_token)).toMatchObject({
      nonce: 'nonce-123',
      c_hash: leftHalfSha256(code),
    });
  });
});

describe('RFC 9700 §4.7: CSRF — state comes back exactly as sent', () => {
  it.each([
    ['a success', {}],
    ['an error', { scope: 'openid admin' }],
    ['a fragment', { response_type: 'code id_token' }],
  ])('in %s', async (_, params) => {
    const state = 'a b+c&d=e/é%20?#';
    const { params: received } = clientParams(await victim.signIn({ ...params, state }));
    expect(received.state).toBe(state);
  });
});

describe('RFC 9700 §4.8: PKCE downgrade', () => {
  it('a code_challenge was sent: a token request without code_verifier → invalid_grant, and the code is not spent', async () => {
    const code = codeOf(await victim.signIn());
    expectOAuthError(await exchange(h, code, { code_verifier: '' }), 400, 'invalid_grant');
    expect((await victimExchange(code)).status).toBe(200);
  });

  it('the code_challenge stripped from the request of a PKCE client → invalid_code_challenge, no code', async () => {
    await victim.signIn();
    const response = await victim.authorize({
      code_challenge: '',
      code_challenge_method: '',
      prompt: 'none',
    });
    const { params } = clientParams(response);
    expect(params.error).toBe('invalid_code_challenge');
    expect(params.code).toBeUndefined();
  });

  it('no code_challenge was sent (client without PKCE): a code_verifier at the token endpoint → invalid_grant', async () => {
    const code = codeOf(await victim.signIn(LEGACY));
    const response = await legacyExchange(code, { code_verifier: ATTACKER_VERIFIER });
    expectOAuthError(response, 400, 'invalid_grant');
  });
});

describe('RFC 9700 §4.11.2: the authorization server as open redirector', () => {
  const EVIL = 'https://evil.example/phish';

  it.each([
    ['an unknown client', { client_id: 'no-such-client' }, 'invalid_client_id'],
    ['no client_id', { client_id: '' }, 'invalid_client_id'],
    ['an unregistered redirect_uri', {}, 'invalid_redirect_uri'],
    [
      'an unregistered redirect_uri and an error to report',
      { scope: 'admin' },
      'invalid_redirect_uri',
    ],
    ['an unregistered redirect_uri and prompt=none', { prompt: 'none' }, 'invalid_redirect_uri'],
    [
      "another client's registered redirect_uri",
      { redirect_uri: LEGACY_OTHER_URI },
      'invalid_redirect_uri',
    ],
  ])('%s: a page, not a redirect', async (_, params, error) => {
    expectNoRedirect(await victim.authorize({ redirect_uri: EVIL, ...params }), error);
  });

  it('the same by POST', async () => {
    const response = await h.post(AUTHORIZE, {
      response_type: 'code',
      client_id: 'web-app',
      redirect_uri: EVIL,
    });
    expectNoRedirect(response, 'invalid_redirect_uri');
  });

  it('a resume link of an unknown interaction: a page, not a redirect', async () => {
    const response = await victim.visit(`${h.issuer()}/authorize/resume?interaction=forged`);
    expectNoRedirect(response, 'invalid_request');
  });

  it('end_session with an unregistered post_logout_redirect_uri: a page, not a redirect', async () => {
    const query = new URLSearchParams({ client_id: 'web-app', post_logout_redirect_uri: EVIL });
    const response = await h.get(endpointPath('logout'), {}, query.toString());
    expect(response.status).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('RFC 9700 §4.12: no 307 after a POST', () => {
  it.each([
    ['a code', {}, 'code'],
    ['an error', { scope: 'openid admin' }, 'error'],
  ])('a POSTed authorization request is answered with %s by a 303', async (_, params, carried) => {
    await victim.signIn();
    const response = await h.post(
      AUTHORIZE,
      {
        response_type: 'code',
        client_id: 'web-app',
        redirect_uri: WEB_REDIRECT_URI,
        state: 'state-123',
        code_challenge: S256_CHALLENGE,
        code_challenge_method: 'S256',
        ...params,
      },
      victim.jar.header(new URL(`${h.issuer()}/authorize`)),
    );
    expect(response.status).toBe(303);
    expect(clientParams(response).params).toMatchObject({
      state: 'state-123',
      [carried]: expect.any(String),
    });
  });
});

describe('RFC 9700 §4.14: refresh token replay', () => {
  it('reusing a rotated refresh token revokes the grant: the newest refresh and access tokens too', async () => {
    const first = tokensOf(await victimExchange(codeOf(await victim.signIn())));
    const rotated = tokensOf(await refresh(h, first.refresh_token ?? ''));
    expect(await isActive(h, rotated.access_token ?? '')).toBe(true);

    expectOAuthError(await refresh(h, first.refresh_token ?? ''), 400, 'invalid_grant');

    expectOAuthError(await refresh(h, rotated.refresh_token ?? ''), 400, 'invalid_grant');
    expect(await isActive(h, rotated.access_token ?? '')).toBe(false);
    expect(await isActive(h, first.access_token ?? '')).toBe(false);
  });
});

describe('RFC 9700 §4.16: clickjacking — no provider page can be framed', () => {
  /**
   * Every page the core renders; the check_session iframe is framed by design (check-session
   * tests).
   */
  const logout = (params: Record<string, string> = {}) =>
    victim.visit(`${h.issuer()}/logout?${new URLSearchParams(params)}`);
  const PAGES: ReadonlyArray<[string, () => Promise<TestResponse>, number, string]> = [
    [
      'an authorization error',
      () => victim.authorize({ client_id: 'no-such-client' }),
      400,
      'invalid_client_id',
    ],
    [
      'a stale resume link',
      () => victim.visit(`${h.issuer()}/authorize/resume?interaction=x`),
      400,
      'invalid_request',
    ],
    [
      'the logout confirmation (a button to press)',
      async () => {
        await victim.signIn();
        return logout();
      },
      200,
      '<button type="submit">',
    ],
    ['the signed-out page', () => logout(), 200, 'You are signed out.'],
    [
      'a logout error',
      () => logout({ client_id: 'web-app', post_logout_redirect_uri: `${WEB_LOGOUT_URI}x` }),
      400,
      'not registered',
    ],
  ];

  it.each(PAGES)('%s', async (_, page, status, text) => {
    const response = await page();
    expect(response.status).toBe(status);
    expect(response.body).toContain(text);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });
});
