import { generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { WEB_LOGOUT_URI } from '../support/fixtures.js';
import { createHarness, endpointPath, type Harness, type TestResponse } from './harness.js';
import { userSessions } from './user-session.js';

const LOGOUT = endpointPath('logout');
const XSS_NAME = '<img src=x onerror=alert(1)>';

let h: Harness;
let users: Awaited<ReturnType<typeof userSessions>>;
beforeAll(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'xss-app',
        client_name: XSS_NAME,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: [],
        post_logout_redirect_uris: ['https://xss.example.com/out'],
      },
    ],
    otherRealms: [
      {
        name: 'other',
        clients: [{ client_id: 'web-app', client_secret: 'x'.repeat(20), grant_types: [] }],
      },
    ],
  });
  users = await userSessions(h);
});

const logoutGet = (params: Record<string, string>, cookie?: string) =>
  h.get(LOGOUT, cookie === undefined ? {} : { cookie }, new URLSearchParams(params).toString());

const logoutPost = (fields: Record<string, string>, cookie?: string) =>
  h.post(LOGOUT, fields, cookie === undefined ? {} : { cookie });

/** Both session cookies deleted, at the realm's path, with the attributes they were set with. */
const CLEARED = [
  '__Host-gh_session-test=; Path=/; SameSite=Lax; Max-Age=0; HttpOnly; Secure',
  'gh_browser_state=; Path=/oauth/test; SameSite=None; Max-Age=0; Secure',
];

function expectRedirect(response: TestResponse, status: number, location: string): void {
  expect({ status: response.status, location: response.headers.location }).toEqual({
    status,
    location,
  });
  expect(response.headers).toMatchObject({
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  expect(response.body).toBeUndefined();
}

/** A page Gatehouse rendered: anti-framing and the other page headers, never a redirect. */
function expectPage(response: TestResponse, status: number, text: string): string {
  expect(response.status).toBe(status);
  expect(response.headers).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toContain(text);
  return response.body ?? '';
}

/** An error page: nothing ended, nothing cleared. */
function expectErrorPage(response: TestResponse, text: string): void {
  expectPage(response, 400, text);
  expect(response.cookies).toBeUndefined();
}

const confirmationToken = (page: string) =>
  /<input type="hidden" name="confirmation" value="([^"]+)">/.exec(page)?.[1] ?? '';

async function signedInWithHint(sub = 'alice') {
  const { record, cookie } = await users.signIn(sub);
  const hint = await users.idToken({ sub, sid: record.sid });
  return { cookie, hint };
}

describe('logout with a valid id_token_hint of the signed-in user', () => {
  it('GET: ends the session, clears both cookies, 302 to the registered URI with state', async () => {
    const { cookie, hint } = await signedInWithHint();
    expect(await users.sessionOf(cookie)).toBeDefined();
    const response = await logoutGet(
      { id_token_hint: hint, post_logout_redirect_uri: WEB_LOGOUT_URI, state: 'a b&c=<d>' },
      cookie,
    );
    expectRedirect(response, 302, `${WEB_LOGOUT_URI}?state=a%20b%26c%3D%3Cd%3E`);
    expect(response.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('POST: the same with 303, and client_id may name the same client', async () => {
    const { cookie, hint } = await signedInWithHint();
    const response = await logoutPost(
      {
        id_token_hint: hint,
        post_logout_redirect_uri: WEB_LOGOUT_URI,
        client_id: 'web-app',
        ui_locales: 'fr en',
      },
      cookie,
    );
    expectRedirect(response, 303, WEB_LOGOUT_URI);
    expect(response.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('without post_logout_redirect_uri: a signed-out page', async () => {
    const { cookie, hint } = await signedInWithHint();
    const response = await logoutGet({ id_token_hint: hint, state: 'xyz' }, cookie);
    expectPage(response, 200, 'You are signed out');
    expect(response.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('accepts an expired hint: only its signature and issuer count', async () => {
    const { cookie, hint } = await signedInWithHint();
    h.clock.advance(7200);
    const response = await logoutGet(
      { id_token_hint: hint, post_logout_redirect_uri: WEB_LOGOUT_URI },
      cookie,
    );
    expectRedirect(response, 302, WEB_LOGOUT_URI);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('ends only this browser session', async () => {
    const first = await signedInWithHint();
    const second = await users.signIn('alice');
    await logoutGet({ id_token_hint: first.hint }, first.cookie);
    expect(await users.sessionOf(first.cookie)).toBeUndefined();
    expect(await users.sessionOf(second.cookie)).toBeDefined();
  });
});

describe('logout without a session', () => {
  it('redirects with a valid hint, setting no cookie the browser did not send', async () => {
    const hint = await users.idToken();
    const response = await logoutGet({
      id_token_hint: hint,
      post_logout_redirect_uri: WEB_LOGOUT_URI,
      state: 's',
    });
    expectRedirect(response, 302, `${WEB_LOGOUT_URI}?state=s`);
    expect(response.cookies).toBeUndefined();
  });

  it('redirects on client_id alone, to a URI registered for it', async () => {
    const response = await logoutGet({
      client_id: 'web-app',
      post_logout_redirect_uri: WEB_LOGOUT_URI,
    });
    expectRedirect(response, 302, WEB_LOGOUT_URI);
  });

  it('shows the signed-out page without parameters', async () => {
    const response = await logoutGet({});
    expectPage(response, 200, 'You are signed out');
    expect(response.cookies).toBeUndefined();
  });

  it('clears the cookies of an expired session the browser still sends', async () => {
    const { cookie } = await users.signIn();
    h.clock.advance(15 * 86_400);
    expect(await users.sessionOf(cookie)).toBeUndefined();
    const response = await logoutGet({}, cookie);
    expectPage(response, 200, 'You are signed out');
    expect(response.cookies).toEqual(CLEARED);
  });
});

describe('a request that cannot be honoured is an error page, never a redirect', () => {
  it.each([
    ['garbage', async () => 'not-a-jwt'],
    [
      'a token signed by another key',
      async () => {
        const { privateKey } = await generateKeyPair('ES256');
        return new SignJWT({ sub: 'alice', aud: 'web-app' })
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
          .setIssuer(h.issuer())
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(privateKey);
      },
    ],
    ['an access token', () => users.accessToken()],
    ['an ID token of another realm', async () => (await userSessions(h, 'other')).idToken()],
  ])('an id_token_hint that is %s', async (_, hint) => {
    const { cookie } = await users.signIn();
    const response = await logoutGet(
      { id_token_hint: await hint(), post_logout_redirect_uri: WEB_LOGOUT_URI },
      cookie,
    );
    expectErrorPage(response, 'The id_token_hint is not a valid ID token of this provider.');
    expect(await users.sessionOf(cookie)).toBeDefined();
  });

  it.each([
    ['a trailing slash', `${WEB_LOGOUT_URI}/`],
    ['another case', WEB_LOGOUT_URI.toUpperCase()],
    ['a prefix of it', WEB_LOGOUT_URI.slice(0, -3)],
    ['an extra query', `${WEB_LOGOUT_URI}?next=https://evil.example.com`],
    ['percent-encoding', WEB_LOGOUT_URI.replace('signed-out', 'signed%2Dout')],
    ['userinfo', WEB_LOGOUT_URI.replace('app.example.com', 'app.example.com@evil.example.com')],
    ['another client’s URI', 'https://xss.example.com/out'],
    ['javascript:', 'javascript:alert(1)'],
  ])('a post_logout_redirect_uri with %s', async (_, uri) => {
    const { cookie, hint } = await signedInWithHint();
    const response = await logoutGet(
      { id_token_hint: hint, post_logout_redirect_uri: uri },
      cookie,
    );
    expectErrorPage(response, 'The post_logout_redirect_uri is not registered for this client.');
    expect(await users.sessionOf(cookie)).toBeDefined();
  });

  it('a post_logout_redirect_uri without hint or client_id', async () => {
    expectErrorPage(
      await logoutGet({ post_logout_redirect_uri: WEB_LOGOUT_URI }),
      'A post_logout_redirect_uri needs an id_token_hint or a client_id naming its client.',
    );
  });

  it('a client_id other than the hint’s audience', async () => {
    const hint = await users.idToken();
    expectErrorPage(
      await logoutGet({ id_token_hint: hint, client_id: 'xss-app' }),
      'The client_id does not match the id_token_hint.',
    );
  });

  it('an unknown client_id', async () => {
    expectErrorPage(
      await logoutGet({ client_id: 'nobody' }),
      'The client_id is not a client of this provider.',
    );
  });

  it('a repeated parameter', async () => {
    const response = await h.get(LOGOUT, {}, 'state=a&state=b');
    expectErrorPage(response, 'a parameter is repeated');
  });

  it('HEAD, which must not sign anyone out', async () => {
    const { cookie, hint } = await signedInWithHint();
    const response = await h.provider.handle({
      method: 'HEAD',
      path: LOGOUT,
      query: new URLSearchParams({ id_token_hint: hint }).toString(),
      headers: { cookie },
    });
    expect(response.status).toBe(405);
    expect(await users.sessionOf(cookie)).toBeDefined();
  });
});

describe('confirmation when the request does not prove the user', () => {
  async function confirmationPage(params: Record<string, string>, cookie: string) {
    const page = expectPage(await logoutGet(params, cookie), 200, 'Sign out?');
    expect(page).toContain(`<form method="post" action="${h.issuer()}/logout">`);
    const token = confirmationToken(page);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return token;
  }

  it('without a hint: the session lives until the user confirms, then 303 with state', async () => {
    const { cookie } = await users.signIn();
    const token = await confirmationPage(
      { client_id: 'web-app', post_logout_redirect_uri: WEB_LOGOUT_URI, state: 'st' },
      cookie,
    );
    expect(await users.sessionOf(cookie)).toBeDefined();
    const response = await logoutPost({ confirmation: token }, cookie);
    expectRedirect(response, 303, `${WEB_LOGOUT_URI}?state=st`);
    expect(response.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('with the hint of another user', async () => {
    const { cookie } = await users.signIn('alice');
    const bobsHint = await users.idToken({ sub: 'bob' });
    const token = await confirmationPage({ id_token_hint: bobsHint }, cookie);
    const response = await logoutPost({ confirmation: token }, cookie);
    expectPage(response, 200, 'You are signed out');
    expect(response.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('names the asking client, escaped', async () => {
    const { cookie } = await users.signIn();
    const page = expectPage(await logoutGet({ client_id: 'xss-app' }, cookie), 200, 'Sign out?');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; asks to sign you out.');
    expect(page).not.toContain(XSS_NAME);
  });

  it('the confirmation works once', async () => {
    const { cookie } = await users.signIn();
    const token = await confirmationPage({}, cookie);
    const first = await logoutPost({ confirmation: token }, cookie);
    expectPage(first, 200, 'You are signed out');
    const again = await users.signIn();
    const replay = await logoutPost({ confirmation: token }, again.cookie);
    expectErrorPage(replay, 'This sign-out request has expired or was already used.');
    expect(await users.sessionOf(again.cookie)).toBeDefined();
  });

  it('one issued to another session (an attacker’s own) does not sign the victim out', async () => {
    const attacker = await users.signIn('bob');
    const token = await confirmationPage({}, attacker.cookie);
    const victim = await users.signIn('alice');
    const response = await logoutPost({ confirmation: token }, victim.cookie);
    expectErrorPage(response, 'This sign-out request was made for another session.');
    expect(await users.sessionOf(victim.cookie)).toBeDefined();
  });

  it('a forged token, or one posted without the session cookie, fails', async () => {
    const { cookie } = await users.signIn();
    expectErrorPage(
      await logoutPost({ confirmation: 'forged-0123456789' }, cookie),
      'This sign-out request has expired or was already used.',
    );
    const token = await confirmationPage({}, cookie);
    expectErrorPage(
      await logoutPost({ confirmation: token }),
      'This sign-out request was made for another session.',
    );
    expect(await users.sessionOf(cookie)).toBeDefined();
  });

  it('expires', async () => {
    const { cookie } = await users.signIn();
    const token = await confirmationPage({}, cookie);
    h.clock.advance(601);
    expectErrorPage(
      await logoutPost({ confirmation: token }, cookie),
      'This sign-out request has expired or was already used.',
    );
    expect(await users.sessionOf(cookie)).toBeDefined();
  });

  it('re-checks the redirect URI against the registration (stored, not taken from the form)', async () => {
    const { cookie } = await users.signIn();
    const token = await confirmationPage(
      { client_id: 'web-app', post_logout_redirect_uri: WEB_LOGOUT_URI },
      cookie,
    );
    const response = await logoutPost(
      { confirmation: token, post_logout_redirect_uri: 'https://evil.example.com/' },
      cookie,
    );
    expectRedirect(response, 303, WEB_LOGOUT_URI);
  });
});

describe('a cross-site POST (no SameSite=Lax session cookie)', () => {
  it('comes back as a GET, which carries the cookie, instead of clearing cookies blindly', async () => {
    const { cookie, hint } = await signedInWithHint();
    const fields = {
      id_token_hint: hint,
      post_logout_redirect_uri: WEB_LOGOUT_URI,
      state: 's t',
      ignored: 'x',
    };
    const response = await logoutPost(fields);
    const { ignored, ...logout } = fields;
    expectRedirect(response, 303, `${h.issuer()}/logout?${new URLSearchParams(logout)}`);
    expect(response.cookies).toBeUndefined();
    expect(await users.sessionOf(cookie)).toBeDefined();

    const location = new URL(response.headers.location ?? '');
    const followed = await h.get(LOGOUT, { cookie }, location.search.slice(1));
    expectRedirect(followed, 302, `${WEB_LOGOUT_URI}?state=s%20t`);
    expect(followed.cookies).toEqual(CLEARED);
    expect(await users.sessionOf(cookie)).toBeUndefined();
  });

  it('is still validated first: a bad request is an error page, not a redirect', async () => {
    expectErrorPage(
      await logoutPost({ id_token_hint: 'not-a-jwt' }),
      'The id_token_hint is not a valid ID token of this provider.',
    );
  });

  it('with the browser-state cookie alone changes nothing', async () => {
    const { cookie, hint } = await signedInWithHint();
    const browserStateOnly = cookie
      .split('; ')
      .filter((pair) => pair.startsWith('gh_browser_state='))
      .join('; ');
    expect(browserStateOnly).not.toBe('');
    const response = await logoutPost({ id_token_hint: hint }, browserStateOnly);
    expect(response.status).toBe(303);
    expect(response.cookies).toBeUndefined();
    expect(await users.sessionOf(cookie)).toBeDefined();
  });
});
