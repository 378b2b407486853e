import { fakeClock } from '@gatehouse-oidc/core/testing';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { basicAuthorization, SECRETS } from '../support/fixtures.js';
import { csrfTokenOf, expectPageHeaders, InjectBrowser, type Injector } from './pages-support.js';
import { signInThroughPages } from './sign-in-support.js';
import { validConfig, withChanges } from './support.js';

const REDIRECT_URI = 'https://app.example.com/cb';
const COOKIE_SECRET = 'cookie-secret-0123456789abcdef0123456789';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/**
 * The standalone server of the shared test config (with `changes`), with a browser on it; the
 * browser reaches it through `via` when given (a proxy in front, say).
 */
function server(
  baseUrl = 'http://127.0.0.1:3000',
  now?: () => number,
  changes: Record<string, unknown> = {},
  via?: (app: FastifyInstance) => Injector,
) {
  const config = parseServerConfig(
    withChanges(validConfig(), {
      base_url: baseUrl,
      cookie_secret: COOKIE_SECRET,
      'realms.0.clients.2.client_name': 'Web app',
      ...changes,
    }),
  );
  const { app } = buildServer(config, now ? { now } : {});
  apps.push(app);
  const browser = new InjectBrowser(via ? via(app) : app, baseUrl);
  return { app, browser, issuer: `${baseUrl}/oauth/demo` };
}

function authorizeUrl(issuer: string, params: Record<string, string> = {}) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    state: 'state-123',
    nonce: 'nonce-123',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  });
  return `${issuer}/authorize?${query}`;
}

/** The parameters of the final redirect to the client. */
function atClient(response: LightMyRequestResponse): Record<string, string> {
  expect(response.statusCode).toBeOneOf([302, 303]);
  const location = String(response.headers.location);
  expect(location.startsWith(`${REDIRECT_URI}?`), location).toBe(true);
  return Object.fromEntries(new URL(location).searchParams);
}

/** Posts the page's form with `fields` and its CSRF token; every answer to a POST is a 303. */
async function submit(
  browser: InjectBrowser,
  page: LightMyRequestResponse,
  url: string,
  fields: Record<string, string>,
) {
  const response = await browser.post(url, { ...fields, csrf_token: csrfTokenOf(page.body) });
  expect(response.statusCode, response.body).toBe(303);
  expectPageHeaders(response.headers);
  return response;
}

/** The tokens the client gets for `code` at the token endpoint. */
async function redeem(s: ReturnType<typeof server>, code: string) {
  const token = await s.app.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuthorization('web', SECRETS.basic),
    },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    }).toString(),
  });
  expect(token.statusCode, token.body).toBe(200);
  return token.json() as { access_token: string; id_token: string };
}

/** Through the login page and, when asked, the consent page; the answer that leaves the server. */
async function signIn(
  s: ReturnType<typeof server>,
  params: Record<string, string> = {},
  decision = 'allow',
) {
  const { browser, issuer } = s;
  const start = await browser.get(authorizeUrl(issuer, params));
  expect(start.statusCode).toBe(302);
  const loginUrl = String(start.headers.location);
  expect(loginUrl).toMatch(new RegExp(`^${issuer}/interaction/[\\w-]{22,}$`));
  const login = await browser.follow(start);
  expect(login.statusCode).toBe(200);
  expect(login.body).toContain('name="password"');
  const signedIn = await submit(browser, login, loginUrl, {
    username: 'alice',
    password: 'alice-password',
  });
  expect(String(signedIn.headers.location)).toMatch(
    new RegExp(`^${issuer}/authorize/resume\\?interaction=`),
  );
  const afterLogin = await browser.follow(signedIn);
  if (afterLogin.statusCode !== 200) return { login, consent: undefined, final: afterLogin };
  // The resume sent the browser to a second interaction: the consent page.
  expect(afterLogin.body).toContain('name="decision"');
  const consentUrl = browser.lastUrl;
  const decided = await submit(browser, afterLogin, consentUrl, { decision });
  return { login, consent: afterLogin, final: await browser.follow(decided) };
}

describe('sign-in through the built-in pages', () => {
  it('logs in, consents and lands on the client with code, state and iss; the code is redeemable', async () => {
    const s = server();
    const { consent, final } = await signIn(s);
    expect(consent?.body).toContain('Web app asks for access to your account');
    expect(consent?.body).toContain('<code>profile</code>');
    const params = atClient(final);
    expect(params).toEqual({
      code: expect.any(String),
      state: 'state-123',
      iss: s.issuer,
      session_state: expect.any(String),
    });

    const { access_token, id_token } = await redeem(s, params.code as string);
    expect(id_token).toEqual(expect.any(String));
    // The claims come from the config's users through the server's Accounts adapter.
    const userinfo = await s.app.inject({
      url: '/oauth/demo/userinfo',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(userinfo.json()).toMatchObject({ sub: 'alice', name: 'Alice' });
  });

  it('leaves an HttpOnly, SameSite=Lax session cookie, so prompt=none then succeeds silently', async () => {
    const s = server();
    await signIn(s);
    expect(s.browser.setCookies.get('gh_session-demo')).toMatch(
      /^gh_session-demo=[\w-]+\.[\w-]+; Path=\/; SameSite=Lax; Max-Age=\d+; HttpOnly$/,
    );
    const silent = await s.browser.get(authorizeUrl(s.issuer, { prompt: 'none' }));
    expect(atClient(silent)).toEqual({
      code: expect.any(String),
      state: 'state-123',
      iss: s.issuer,
      session_state: expect.any(String),
    });
  });

  it('makes every cookie a __Host- one, Secure on Path=/, when base_url is https', async () => {
    const s = server('https://id.example.com');
    atClient((await signIn(s)).final);
    for (const name of ['__Host-gh_csrf', '__Host-gh_session-demo', '__Host-gh_browser']) {
      const attributes = s.browser.setCookies.get(name)?.split('; ').slice(1);
      expect(attributes).toEqual(
        expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']),
      );
      expect(attributes?.some((attribute) => attribute.startsWith('Domain'))).toBe(false);
    }
  });

  it('ends at the client with access_denied when the user denies', async () => {
    const s = server();
    const { final } = await signIn(s, {}, 'deny');
    expect(atClient(final)).toEqual({
      error: 'access_denied',
      error_description: expect.any(String),
      state: 'state-123',
      iss: s.issuer,
    });
  });

  it('speaks French all the way with ui_locales=fr', async () => {
    const s = server();
    const { login, consent, final } = await signIn(s, { ui_locales: 'fr' });
    expect(login.body).toContain('<html lang="fr">');
    expect(login.body).toContain('Se connecter');
    expect(consent?.body).toContain('<html lang="fr">');
    expect(consent?.body).toContain('Web app demande l’accès à votre compte');
    expect(atClient(final).code).toEqual(expect.any(String));
  });

  it('allows the form posts to lead to the client (CSP form-action)', async () => {
    const s = server();
    const { login } = await signIn(s);
    expect(login.headers['content-security-policy']).toContain(
      "form-action 'self' https://app.example.com;",
    );
  });

  it('ends with a page that posts the code to the client for response_mode=form_post', async () => {
    const s = server();
    const { final } = await signIn(s, { response_mode: 'form_post' });
    expect(final.statusCode).toBe(200);
    expect(final.headers['content-security-policy']).toMatch(
      /^default-src 'none'; script-src 'sha256-[\w+/]+=*';.* frame-ancestors 'none'/,
    );
    const form = /<form method="post" action="([^"]+)">(.*)<\/form>/s.exec(final.body);
    expect(form?.[1]).toBe(REDIRECT_URI);
    const fields = Object.fromEntries(
      [...(form?.[2] ?? '').matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(fields).sort()).toEqual(['code', 'iss', 'session_state', 'state']);
    expect(fields.state).toBe('state-123');
  });

  it('serves the pages before the Gatehouse catch-all: an unknown interaction is a page, not JSON', async () => {
    const { app } = server();
    const response = await app.inject({ url: '/oauth/demo/interaction/unknown' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expectPageHeaders(response.headers);
    // Other methods still reach the provider.
    const put = await app.inject({ method: 'PUT', url: '/oauth/demo/interaction/unknown' });
    expect(put.headers['content-type']).toMatch(/^application\/json/);
  });

  it('throttles failed logins on the injected clock, which the provider shares', async () => {
    const clock = fakeClock();
    const s = server('http://127.0.0.1:3000', clock.now);
    for (let failure = 0; failure < 5; failure += 1) {
      expect((await tryPassword(s, 'wrong-password')).statusCode).toBe(401);
    }
    expect((await tryPassword(s, 'alice-password')).statusCode).toBe(429);
    clock.advance(900);
    expect((await tryPassword(s, 'alice-password')).statusCode).toBe(303);
  });

  it('shows a realm scope named like an Object.prototype member as a plain scope', async () => {
    const s = server('http://127.0.0.1:3000', undefined, {
      'realms.0.scopes': ['openid', 'profile', 'api:read', 'constructor'],
      'realms.0.clients.2.scope': 'openid profile constructor',
    });
    const { consent, final } = await signIn(s, { scope: 'openid constructor' });
    expect(consent?.body).toContain('<li>Know who you are <code>openid</code></li>');
    expect(consent?.body).toContain('<li><code>constructor</code></li>');
    expect(atClient(final).code).toEqual(expect.any(String));
  });
});

describe('the username the login page fills in', () => {
  /** Alice's username is not her sub here, so a page showing it would tell it. */
  const aliceAsLiddell = () =>
    server('http://127.0.0.1:3000', undefined, { 'realms.0.users.0.username': 'liddell' });

  /** The login page a fresh browser is shown for `params`, its CSRF token left out. */
  async function loginPage(s: ReturnType<typeof server>, params: Record<string, string>) {
    const browser = new InjectBrowser(s.app, 'http://127.0.0.1:3000');
    const page = await browser.follow(await browser.get(authorizeUrl(s.issuer, params)));
    expect(page.statusCode, page.body).toBe(200);
    return page.body.replace(csrfTokenOf(page.body), '');
  }

  it('is never that of the sub a claims parameter asks for: any sub gets the same blank form', async () => {
    const s = aliceAsLiddell();
    const asking = (sub: string) => ({
      claims: JSON.stringify({ id_token: { sub: { value: sub } } }),
    });
    const alice = await loginPage(s, asking('alice'));
    expect(alice).toMatch(/name="username"[^>]* required autofocus>/);
    expect(alice).not.toContain('liddell');
    expect(await loginPage(s, asking('nobody'))).toBe(alice);
    expect(await loginPage(s, {})).toBe(alice);
  });

  it('is that of the user a verified id_token_hint names', async () => {
    const s = aliceAsLiddell();
    const credentials = { username: 'liddell', password: 'alice-password' };
    const landed = await signInThroughPages(s.browser, authorizeUrl(s.issuer), credentials);
    const { id_token } = await redeem(s, landed.searchParams.get('code') as string);
    const page = await loginPage(s, { id_token_hint: id_token, login_hint: 'someone' });
    expect(page).toMatch(/name="username"[^>]* value="liddell">/);
  });
});

describe('the login throttle behind a reverse proxy', () => {
  const PROXY = '10.0.0.1';

  /** Every request arrives from the proxy, with the X-Forwarded-For it wrote. */
  function behindProxy(forwarded: { for: string }) {
    return (app: FastifyInstance) => ({
      inject: (options: Parameters<Injector['inject']>[0]) =>
        app.inject({
          ...options,
          remoteAddress: PROXY,
          headers: { ...options.headers, 'x-forwarded-for': forwarded.for },
        }),
    });
  }

  it('counts the address the proxy appended with trust_proxy; the client cannot choose it', async () => {
    const forwarded = { for: '' };
    const s = server(
      'http://127.0.0.1:3000',
      undefined,
      { trust_proxy: true },
      behindProxy(forwarded),
    );
    // The attacker writes an X-Forwarded-For of its own; the proxy appends the address it sees.
    for (let failure = 0; failure < 5; failure += 1) {
      forwarded.for = `203.0.113.${failure}, 198.51.100.7`;
      expect((await tryPassword(s, 'wrong-password')).statusCode).toBe(401);
    }
    forwarded.for = '203.0.113.99, 198.51.100.7';
    expect((await tryPassword(s, 'alice-password')).statusCode).toBe(429);
    // Alice at her own address, through the same proxy, is not locked out.
    forwarded.for = '198.51.100.8';
    expect((await tryPassword(s, 'alice-password')).statusCode).toBe(303);
  });

  it('ignores X-Forwarded-For by default: every client counts as the proxy', async () => {
    const forwarded = { for: '198.51.100.7' };
    const s = server('http://127.0.0.1:3000', undefined, {}, behindProxy(forwarded));
    for (let failure = 0; failure < 5; failure += 1) {
      expect((await tryPassword(s, 'wrong-password')).statusCode).toBe(401);
    }
    forwarded.for = '198.51.100.8';
    expect((await tryPassword(s, 'alice-password')).statusCode).toBe(429);
  });
});

/** Starts a sign-in and posts the login form with this password; the answer to the post. */
async function tryPassword(s: ReturnType<typeof server>, password: string) {
  const login = await s.browser.follow(await s.browser.get(authorizeUrl(s.issuer)));
  const fields = { username: 'alice', password, csrf_token: csrfTokenOf(login.body) };
  return s.browser.post(s.browser.lastUrl, fields);
}

describe('logout pages in the languages of the login pages', () => {
  /** The confirmation page's one-time token. */
  const confirmationOf = (body: string) =>
    /name="confirmation" value="([^"]+)"/.exec(body)?.[1] ?? '';

  it.each([
    ['fr-CA fr', 'fr', 'Se déconnecter ?', 'Se déconnecter', 'Vous êtes déconnecté.'],
    ['de', 'en', 'Sign out?', 'Sign out', 'You are signed out.'],
  ])('ui_locales=%s: asks and confirms in %s', async (uiLocales, lang, heading, button, done) => {
    const s = server();
    await signIn(s, { ui_locales: uiLocales });
    const confirm = await s.browser.get(
      `${s.issuer}/logout?${new URLSearchParams({ ui_locales: uiLocales })}`,
    );
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`<html lang="${lang}">`);
    expect(confirm.body).toContain(`<h1>${heading}</h1>`);
    expect(confirm.body).toContain(`<button type="submit">${button}</button>`);
    const signedOut = await s.browser.post(`${s.issuer}/logout`, {
      confirmation: confirmationOf(confirm.body),
    });
    expect(signedOut.statusCode).toBe(200);
    expect(signedOut.body).toContain(`<html lang="${lang}">`);
    expect(signedOut.body).toContain(done);
  });

  it('explains a refused logout request in French', async () => {
    const s = server();
    const failed = await s.browser.get(`${s.issuer}/logout?client_id=nobody&ui_locales=fr`);
    expect(failed.statusCode).toBe(400);
    expect(failed.body).toContain('<h1>Échec de la déconnexion</h1>');
    expect(failed.headers['x-frame-options']).toBe('DENY');
  });
});
