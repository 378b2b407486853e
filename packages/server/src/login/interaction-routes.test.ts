import {
  type InteractionDetails,
  InteractionError,
  type InteractionResult,
  type Interactions,
  StoreUnavailableError,
} from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectPageHeaders, openPage, postForm } from '../../../../test/server/pages-support.js';
import { BOB_PASSWORD_HASH } from '../../../../test/server/support.js';
import { messagePage } from '../pages/message.js';
import { CsrfTokens } from './csrf.js';
import { interactionRoutes } from './interaction-routes.js';
import { type CheckKind, DerivationSlots, type ScryptHash, verifyPassword } from './password.js';
import { LoginThrottle, type LoginThrottleOptions } from './throttle.js';
import { UserDirectory } from './user-directory.js';

const BASE_URL = 'http://127.0.0.1:3000';
const COOKIE_SECRET = 'cookie-secret-0123456789abcdef0123456789';

const REALMS = [
  {
    name: 'demo',
    users: [
      {
        sub: 'alice-sub',
        username: 'alice',
        password: 'alice-password',
        claims: { name: 'Alice Liddell' },
      },
      { sub: 'bob-sub', username: 'bob', password_hash: BOB_PASSWORD_HASH, claims: {} },
    ],
  },
];
/** Shared by most tests: the plain-text password is hashed once, at the first login. */
/** The users of REALMS, by realm name. */
const usersOf = (name: string) => REALMS.find((realm) => realm.name === name)?.users;
const USERS = new UserDirectory(usersOf);

/** The provider's side of interactions, in memory: what the pages read and finish. */
class FakeInteractions implements Interactions {
  readonly pending = new Map<string, InteractionDetails>();
  readonly results = new Map<string, InteractionResult>();

  add(details: Partial<InteractionDetails> & Pick<InteractionDetails, 'id' | 'prompt'>) {
    this.pending.set(details.id, {
      realm: 'demo',
      client: { id: 'web', name: 'Web app' },
      redirectUri: 'https://app.example.com/cb',
      scopes: ['openid', 'profile'],
      requestedPrompt: [],
      ...details,
    });
    return `/oauth/demo/interaction/${details.id}`;
  }

  async details(realm: string, id: string) {
    const details = this.pending.get(id);
    return details?.realm === realm && !this.results.has(id) ? details : undefined;
  }

  async finish(realm: string, id: string, result: InteractionResult) {
    if (!(await this.details(realm, id))) throw new InteractionError('unknown interaction');
    this.results.set(id, result);
    return `${BASE_URL}/oauth/${realm}/authorize/resume?interaction=${id}`;
  }
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function pages({
  baseUrl = BASE_URL,
  report = vi.fn(),
  throttle = {} as LoginThrottleOptions,
  users = USERS,
} = {}) {
  const interactions = new FakeInteractions();
  const clock = fakeClock();
  const app = Fastify();
  app.register(interactionRoutes, {
    interactions,
    users,
    csrf: new CsrfTokens(COOKIE_SECRET),
    throttle: new LoginThrottle({ now: clock.now, ...throttle }),
    baseUrl,
    formTargets: (realm, clientId) =>
      realm === 'demo' && clientId === 'web' ? ['https://app.example.com'] : [],
    report,
  });
  apps.push(app);
  return { app, interactions, clock, report };
}

const resumeUrl = (id: string) => `${BASE_URL}/oauth/demo/authorize/resume?interaction=${id}`;
const count = (text: string, pattern: RegExp | string) =>
  typeof pattern === 'string' ? text.split(pattern).length - 1 : (text.match(pattern)?.length ?? 0);

describe('login page', () => {
  it('has one post form with username, password, a hidden CSRF token and one submit button', async () => {
    const { app, interactions } = pages();
    const page = await openPage(app, interactions.add({ id: 'i1', prompt: 'login' }));
    const { body, statusCode, headers } = page.response;
    expect(statusCode).toBe(200);
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expectPageHeaders(headers);
    expect(headers['content-security-policy']).toContain(
      "form-action 'self' https://app.example.com;",
    );
    expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(count(body, /<form\b/g)).toBe(1);
    expect(body).toContain('<form method="post">');
    expect(count(body, /<input id="username" name="username" type="text"/g)).toBe(1);
    expect(count(body, /<input id="password" name="password" type="password"/g)).toBe(1);
    expect(count(body, /<button\b/g)).toBe(1);
    expect(body).toContain('<button type="submit">Sign in</button>');
    expect(body).toContain('Sign in to continue to Web app');
    expect(body).not.toMatch(/<script/i);
  });

  it('sets the CSRF cookie HttpOnly, SameSite=Lax, on the whole origin; __Host- on https', async () => {
    const http = pages();
    const plain = await openPage(http.app, http.interactions.add({ id: 'i1', prompt: 'login' }));
    expect(plain.response.headers['set-cookie']).toMatch(
      /^gh_csrf=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const https = pages({ baseUrl: 'https://id.example.com/auth' });
    const secure = await openPage(https.app, https.interactions.add({ id: 'i1', prompt: 'login' }));
    expect(secure.response.headers['set-cookie']).toMatch(
      /^__Host-gh_csrf=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    // On https a plain gh_csrf cookie, which a plain-http neighbour could plant, is not the key.
    const planted = secure.cookie.replace('__Host-gh_csrf', 'gh_csrf');
    const fields = { csrf_token: secure.token, username: 'alice', password: 'alice-password' };
    const refused = await postForm(https.app, '/oauth/demo/interaction/i1', fields, {
      cookie: planted,
    });
    expect(refused.statusCode).toBe(403);
    const replanted = await openPage(https.app, '/oauth/demo/interaction/i1', planted);
    expect(replanted.response.headers['set-cookie']).toMatch(/^__Host-gh_csrf=/);
    // A browser that already has its key keeps it.
    const again = await openPage(http.app, '/oauth/demo/interaction/i1', plain.cookie);
    expect(again.response.headers['set-cookie']).toBeUndefined();
    expect(again.token).toBe(plain.token);
  });

  it('signs the user in and sends the browser on with a 303 to the resume URL', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const { token, cookie } = await openPage(app, url);
    const response = await postForm(
      app,
      url,
      { csrf_token: token, username: 'alice', password: 'alice-password' },
      { cookie },
    );
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(resumeUrl('i1'));
    expectPageHeaders(response.headers);
    expect(interactions.results.get('i1')).toEqual({ login: { sub: 'alice-sub', amr: ['pwd'] } });
  });

  it('accepts a user with a stored scrypt hash', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const { token, cookie } = await openPage(app, url);
    const fields = { csrf_token: token, username: 'bob', password: 'bob-password' };
    expect((await postForm(app, url, fields, { cookie })).statusCode).toBe(303);
    expect(interactions.results.get('i1')).toEqual({ login: { sub: 'bob-sub', amr: ['pwd'] } });
  });

  it('answers a wrong password and an unknown username identically, 401, naming neither', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const { token, cookie } = await openPage(app, url);
    const [wrongPassword, unknownUser] = await Promise.all(
      [
        { username: 'alice', password: 'alice-passwore' },
        { username: 'alice2', password: 'alice-password' },
      ].map((credentials) => postForm(app, url, { csrf_token: token, ...credentials }, { cookie })),
    );
    for (const response of [wrongPassword, unknownUser]) {
      expect(response?.statusCode).toBe(401);
      expectPageHeaders(response?.headers ?? {});
      expect(response?.body).toContain('The username or password is incorrect.');
    }
    expect(unknownUser?.body.replace('alice2', 'alice')).toBe(wrongPassword?.body);
    expect(interactions.results.size).toBe(0);
    // The form is shown again, with the username kept and the same token.
    expect(wrongPassword?.body).toContain('value="alice"');
    expect(wrongPassword?.body).toContain(token);
  });

  it('fills the username in from login_hint', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login', loginHint: 'alice' });
    const { body } = (await openPage(app, url)).response;
    expect(body).toContain('name="username" type="text" autocomplete="username"');
    expect(body).toMatch(/name="username"[^>]* value="alice">/);
  });

  it('fills in the username of the user an id_token_hint names, before any login_hint', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({
      id: 'i1',
      prompt: 'login',
      expectedSub: 'bob-sub',
      hintedSub: 'bob-sub',
      loginHint: 'alice',
    });
    const { body } = (await openPage(app, url)).response;
    expect(body).toMatch(/name="username"[^>]* value="bob">/);
  });

  it('never shows who an expected sub no id_token_hint vouches for is (a claims parameter sets it)', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login', expectedSub: 'bob-sub' });
    const { body } = (await openPage(app, url)).response;
    expect(body).toMatch(/name="username"[^>]* required autofocus>/);
    expect(body).not.toContain('bob');
  });
});

describe('CSRF', () => {
  async function refused(
    fields: (page: { token: string; otherToken: string }) => Record<string, string>,
    cookieOf: (page: { cookie: string; otherCookie: string }) => string | undefined,
  ) {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const other = interactions.add({ id: 'i2', prompt: 'login' });
    const { token, cookie } = await openPage(app, url);
    // Another browser, and the same browser's page of another interaction.
    const otherBrowser = await openPage(app, url);
    const otherInteraction = await openPage(app, other, cookie);
    const credentials = { username: 'alice', password: 'alice-password' };
    const response = await postForm(
      app,
      url,
      { ...credentials, ...fields({ token, otherToken: otherInteraction.token }) },
      {
        cookie: cookieOf({ cookie, otherCookie: otherBrowser.cookie }),
      },
    );
    expect(otherBrowser.token).not.toBe(token);
    return { response, interactions };
  }

  it.each([
    ['a missing token', () => ({}), ({ cookie }: { cookie: string }) => cookie],
    [
      'a wrong token',
      ({ token }: { token: string }) => ({
        csrf_token: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      }),
      ({ cookie }: { cookie: string }) => cookie,
    ],
    [
      'the token of another interaction',
      ({ otherToken }: { otherToken: string }) => ({ csrf_token: otherToken }),
      ({ cookie }: { cookie: string }) => cookie,
    ],
    ['no CSRF cookie', ({ token }: { token: string }) => ({ csrf_token: token }), () => undefined],
    [
      'the CSRF cookie of another browser',
      ({ token }: { token: string }) => ({ csrf_token: token }),
      ({ otherCookie }: { otherCookie: string }) => otherCookie,
    ],
  ])('refuses %s with 403, before checking the password', async (_name, fields, cookieOf) => {
    const { response, interactions } = await refused(fields, cookieOf);
    expect(response.statusCode).toBe(403);
    expectPageHeaders(response.headers);
    expect(response.body).toContain('Form refused');
    expect(interactions.results.size).toBe(0);
  });

  it('guards the consent form too', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'c1', prompt: 'consent', sub: 'alice-sub' });
    const { cookie } = await openPage(app, url);
    const response = await postForm(app, url, { decision: 'allow' }, { cookie });
    expect(response.statusCode).toBe(403);
    expect(interactions.results.size).toBe(0);
  });
});

describe('failure throttle', () => {
  async function attempt(
    app: FastifyInstance,
    url: string,
    page: { token: string; cookie: string },
    username: string,
    password: string,
    remoteAddress = '192.0.2.1',
  ) {
    return postForm(
      app,
      url,
      { csrf_token: page.token, username, password },
      { cookie: page.cookie, remoteAddress },
    );
  }

  /** The shared users, with each password check counted. */
  function countedUsers() {
    const checks = { count: 0 };
    const users = new UserDirectory(usersOf, {
      verify: (password: string, hash: ScryptHash) => {
        checks.count += 1;
        return verifyPassword(password, hash);
      },
    });
    return { users, checks };
  }

  it('refuses a username at an address after 5 failures with 429 until the 15-minute window passes', async () => {
    const { app, interactions, clock } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    for (let failure = 0; failure < 5; failure += 1) {
      expect((await attempt(app, url, page, 'alice', 'wrong-password')).statusCode).toBe(401);
    }
    // Even the right password, from that address.
    const locked = await attempt(app, url, page, 'alice', 'alice-password');
    expect(locked.statusCode).toBe(429);
    expectPageHeaders(locked.headers);
    expect(locked.body).toContain('Too many failed sign-in attempts');
    expect(locked.body).not.toContain('incorrect');
    expect(interactions.results.size).toBe(0);

    clock.advance(899);
    expect((await attempt(app, url, page, 'alice', 'alice-password')).statusCode).toBe(429);
    clock.advance(1);
    expect((await attempt(app, url, page, 'alice', 'alice-password')).statusCode).toBe(303);
  });

  it('lets the user in from another address: one attacker cannot lock them out', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    for (let failure = 0; failure < 5; failure += 1) {
      await attempt(app, url, page, 'alice', 'wrong-password', '198.51.100.66');
    }
    expect((await attempt(app, url, page, 'alice', 'x', '198.51.100.66')).statusCode).toBe(429);
    const elsewhere = await attempt(app, url, page, 'alice', 'alice-password', '192.0.2.1');
    expect(elsewhere.statusCode).toBe(303);
  });

  it('checks only the limit of 30 wrong passwords posted at once; the rest get 429', async () => {
    const { users, checks } = countedUsers();
    const { app, interactions } = pages({ users });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(app, url, page, 'alice', `guess-${i}`)),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    expect(checks.count).toBe(5);
    expect((await attempt(app, url, page, 'alice', 'alice-password')).statusCode).toBe(429);
  });

  it('checks only the address limit of wrong passwords for many usernames posted at once', async () => {
    const perAddress = { maxFailures: 4, windowSeconds: 900 };
    const { users, checks } = countedUsers();
    const { app, interactions } = pages({ throttle: { perAddress }, users });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => attempt(app, url, page, `user${i}`, 'guess')),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8);
    expect(checks.count).toBe(4);
  });

  it('counts unknown usernames like known ones', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    for (let failure = 0; failure < 5; failure += 1) await attempt(app, url, page, 'nobody', 'x');
    expect((await attempt(app, url, page, 'nobody', 'x')).statusCode).toBe(429);
  });

  it('refuses an address after its limit of failures, whatever the username', async () => {
    // The default limit (20) is checked in login-throttle.test.ts, without scrypt in the way.
    const perAddress = { maxFailures: 3, windowSeconds: 900 };
    const { app, interactions } = pages({ throttle: { perAddress } });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    for (let failure = 0; failure < 3; failure += 1) {
      await attempt(app, url, page, `user${failure}`, 'wrong-password', '198.51.100.7');
    }
    const fromThere = await attempt(app, url, page, 'alice', 'alice-password', '198.51.100.7');
    expect(fromThere.statusCode).toBe(429);
    const elsewhere = await attempt(app, url, page, 'alice', 'alice-password', '198.51.100.8');
    expect(elsewhere.statusCode).toBe(303);
  });

  it('counts an IPv6 client by its /64, so rotating addresses within it does not help', async () => {
    const perAddress = { maxFailures: 3, windowSeconds: 900 };
    const { app, interactions } = pages({ throttle: { perAddress } });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    for (let failure = 1; failure <= 3; failure += 1) {
      await attempt(app, url, page, `user${failure}`, 'wrong', `2001:db8:0:5::${failure}`);
    }
    const sameNetwork = await attempt(
      app,
      url,
      page,
      'alice',
      'alice-password',
      '2001:db8:0:5::99',
    );
    expect(sameNetwork.statusCode).toBe(429);
    const otherNetwork = await attempt(
      app,
      url,
      page,
      'alice',
      'alice-password',
      '2001:db8:0:6::1',
    );
    expect(otherNetwork.statusCode).toBe(303);
  });
});

describe('password check queue', () => {
  /** Users whose checks go through `slots`, and a way to hold those slots busy. */
  function busyUsers() {
    const slots = new DerivationSlots({ concurrent: 1, waitingChecks: 0, waitingSuspectChecks: 0 });
    const users = new UserDirectory(usersOf, {
      verify: (password: string, hash: ScryptHash, kind: CheckKind) =>
        verifyPassword(password, hash, slots, kind),
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // One check running and no place to wait: the queue is full.
    const holder = slots.run(() => released, 'check');
    return {
      users,
      release: async () => {
        release();
        await holder;
      },
    };
  }

  it('answers 503 at once when too many checks wait, counting it against the address only', async () => {
    const { users, release } = busyUsers();
    const { app, interactions } = pages({
      users,
      throttle: { perAddress: { maxFailures: 6, windowSeconds: 900 } },
    });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    const fields = { csrf_token: page.token, username: 'alice', password: 'wrong-password' };
    for (let i = 0; i < 5; i += 1) {
      const busy = await postForm(app, url, fields, { cookie: page.cookie });
      expect(busy.statusCode).toBe(503);
      expectPageHeaders(busy.headers);
      expect(busy.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(busy.body).toContain('The service is temporarily unavailable.');
      // The generic page, nothing of the failure.
      expect(busy.body).toBe(messagePage('en', 'unavailable'));
    }
    await release();
    // Five refusals did not count against alice (5 failures block a username at an address)...
    const right = { ...fields, password: 'alice-password' };
    expect((await postForm(app, url, right, { cookie: page.cookie })).statusCode).toBe(303);
    // ...but against the address: one more failure and it is blocked.
    const next = interactions.add({ id: 'i2', prompt: 'login' });
    const nextPage = await openPage(app, next);
    const post = (password: string) =>
      postForm(
        app,
        next,
        { csrf_token: nextPage.token, username: 'bob', password },
        { cookie: nextPage.cookie },
      );
    expect((await post('wrong-password')).statusCode).toBe(401);
    expect((await post('bob-password')).statusCode).toBe(429);
  });

  it('serves a correct login from a fresh address behind a wave of wrong passwords from 40 others', async () => {
    const slots = new DerivationSlots();
    const checks: CheckKind[] = [];
    const users = new UserDirectory(usersOf, {
      verify: (password: string, hash: ScryptHash, kind: CheckKind) => {
        checks.push(kind);
        return verifyPassword(password, hash, slots, kind);
      },
    });
    // Both derivations run until the test lets them end: every check waits for a place.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holders = [slots.run(() => released, 'check'), slots.run(() => released, 'check')];
    const { app, interactions } = pages({ users });
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const page = await openPage(app, url);
    const post = (username: string, password: string, remoteAddress: string) =>
      postForm(
        app,
        url,
        { csrf_token: page.token, username, password },
        { cookie: page.cookie, remoteAddress },
      );
    // Four posts at once from each of 40 addresses that never failed: the first of each is no
    // more suspect than the login.
    const flood = Array.from({ length: 160 }, (_, n) =>
      post(`flood-${n}`, 'wrong-password', `198.51.100.${n % 40}`),
    );
    await vi.waitFor(() => expect(checks).toHaveLength(160), { timeout: 10_000 });
    const login = post('alice', 'alice-password', '203.0.113.7');
    await vi.waitFor(() => expect(checks).toHaveLength(161), { timeout: 10_000 });
    release();
    await Promise.all(holders);
    expect((await login).statusCode).toBe(303);
    const statuses = (await Promise.all(flood)).map((response) => response.statusCode);
    // The 31 waiting places the login left, and 503 for the rest.
    expect(statuses.filter((status) => status === 401)).toHaveLength(31);
    expect(statuses.filter((status) => status === 503)).toHaveLength(129);
  });

  it('says it in the page’s language', async () => {
    const { users } = busyUsers();
    const { app, interactions } = pages({ users });
    const url = interactions.add({ id: 'i1', prompt: 'login', uiLocales: ['fr'] });
    const page = await openPage(app, url);
    const fields = { csrf_token: page.token, username: 'nobody', password: 'x' };
    const busy = await postForm(app, url, fields, { cookie: page.cookie });
    expect(busy.statusCode).toBe(503);
    expect(busy.body).toContain('<html lang="fr">');
    expect(busy.body).toContain('Le service est momentanément indisponible.');
  });
});

describe('consent page', () => {
  it('lists the client and the requested scopes, with allow and deny buttons in one form', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({
      id: 'c1',
      prompt: 'consent',
      sub: 'alice-sub',
      scopes: ['openid', 'profile', 'api:read'],
    });
    const { response } = await openPage(app, url);
    const { body, statusCode, headers } = response;
    expect(statusCode).toBe(200);
    expectPageHeaders(headers);
    expect(body).toContain('Web app asks for access to your account');
    expect(body).toContain('Signed in as Alice Liddell.');
    expect(body).toContain('<li>Know who you are <code>openid</code></li>');
    expect(body).toContain('<li>See your name and profile <code>profile</code></li>');
    expect(body).toContain('<li><code>api:read</code></li>');
    expect(count(body, /<form\b/g)).toBe(1);
    expect(body).toContain('<form method="post">');
    expect(count(body, /<button\b/g)).toBe(2);
    expect(body).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(body).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
  });

  it('shows scope names that are also names of Object.prototype as plain scopes', async () => {
    const { app, interactions } = pages();
    const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
    const url = interactions.add({
      id: 'c1',
      prompt: 'consent',
      sub: 'alice-sub',
      scopes: ['openid', ...inherited],
    });
    const { body } = (await openPage(app, url)).response;
    expect(body).toContain('<li>Know who you are <code>openid</code></li>');
    for (const scope of inherited) expect(body).toContain(`<li><code>${scope}</code></li>`);
    expect(body).not.toMatch(/function|\[object|native code/);
  });

  it.each([
    ['allow', { consent: { scopes: ['openid', 'profile'] } }],
    ['deny', { error: 'access_denied' }],
  ])('finishes with %s and a 303 to the resume URL', async (decision, result) => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'c1', prompt: 'consent', sub: 'alice-sub' });
    const { token, cookie } = await openPage(app, url);
    const response = await postForm(app, url, { csrf_token: token, decision }, { cookie });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(resumeUrl('c1'));
    expect(interactions.results.get('c1')).toEqual(result);
  });

  it('refuses a decision other than allow or deny with 400', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'c1', prompt: 'consent', sub: 'alice-sub' });
    const { token, cookie } = await openPage(app, url);
    const response = await postForm(app, url, { csrf_token: token, decision: 'maybe' }, { cookie });
    expect(response.statusCode).toBe(400);
    expect(interactions.results.size).toBe(0);
  });
});

describe('languages', () => {
  it('speaks French when ui_locales names it first among the supported ones', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login', uiLocales: ['de', 'fr-CA', 'en'] });
    const page = await openPage(app, url);
    expect(page.response.body).toMatch(/^<!doctype html>\n<html lang="fr">/);
    expect(page.response.body).toContain('<title>Connexion</title>');
    expect(page.response.body).toContain('<button type="submit">Se connecter</button>');
    const failed = await postForm(
      app,
      url,
      { csrf_token: page.token, username: 'alice', password: 'nope-nope' },
      { cookie: page.cookie },
    );
    expect(failed.body).toContain('Le nom d’utilisateur ou le mot de passe est incorrect.');
  });

  it('translates the consent page', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'c1', prompt: 'consent', uiLocales: ['fr'] });
    const { body } = (await openPage(app, url)).response;
    expect(body).toContain('<html lang="fr">');
    expect(body).toContain('value="allow">Autoriser</button>');
    expect(body).toContain('value="deny">Refuser</button>');
    expect(body).toContain('Voir votre nom et votre profil');
  });

  it('falls back to English', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login', uiLocales: ['de', 'es'] });
    expect((await openPage(app, url)).response.body).toContain('<html lang="en">');
  });
});

describe('escaping', () => {
  const attack = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
  const escaped =
    '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;';

  it('escapes the client name, the login hint and a posted username', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({
      id: 'i1',
      prompt: 'login',
      client: { id: 'web', name: attack },
      loginHint: attack,
    });
    const page = await openPage(app, url);
    expect(page.response.body).not.toContain('<script>');
    expect(page.response.body).not.toContain('<img');
    expect(count(page.response.body, escaped)).toBe(2);
    const failed = await postForm(
      app,
      url,
      { csrf_token: page.token, username: attack, password: 'whatever-it-is' },
      { cookie: page.cookie },
    );
    expect(failed.statusCode).toBe(401);
    expect(failed.body).not.toContain('<script>');
    expect(failed.body).toContain(`value="${escaped}"`);
  });

  it('escapes scope names and the client id on the consent page', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({
      id: 'c1',
      prompt: 'consent',
      client: { id: attack },
      scopes: [attack],
    });
    const { body } = (await openPage(app, url)).response;
    expect(body).not.toContain('<script>');
    expect(count(body, escaped)).toBe(2);
  });
});

describe('failures', () => {
  it.each(['GET', 'POST'] as const)(
    'answers %s of an unknown interaction with a 400 page',
    async (method) => {
      const { app } = pages();
      const response =
        method === 'GET'
          ? await app.inject({ url: '/oauth/demo/interaction/nope' })
          : await postForm(app, '/oauth/demo/interaction/nope', { csrf_token: 'x' });
      expect(response.statusCode).toBe(400);
      expectPageHeaders(response.headers);
      expect(response.body).toContain(
        'This sign-in request is unknown, already finished or has expired.',
      );
    },
  );

  it('answers a page of another realm as unknown', async () => {
    const { app, interactions } = pages();
    interactions.add({ id: 'i1', prompt: 'login' });
    expect((await app.inject({ url: '/oauth/other/interaction/i1' })).statusCode).toBe(400);
  });

  it('answers 400 when the interaction finishes in another tab meanwhile', async () => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'c1', prompt: 'consent' });
    const { token, cookie } = await openPage(app, url);
    vi.spyOn(interactions, 'finish').mockRejectedValue(new InteractionError('finished'));
    const response = await postForm(app, url, { csrf_token: token, decision: 'allow' }, { cookie });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('already finished');
  });

  it.each([
    ['JSON', 'application/json', '{"username":"alice"}', 400],
    ['an oversized form', 'application/x-www-form-urlencoded', `a=${'x'.repeat(9000)}`, 413],
  ])('refuses %s with a page, never a stack', async (_name, contentType, payload, status) => {
    const { app, interactions } = pages();
    const url = interactions.add({ id: 'i1', prompt: 'login' });
    const response = await app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': contentType },
      payload,
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expectPageHeaders(response.headers);
    expect(response.body).not.toMatch(/at .*\.ts|Error:/);
  });

  it.each([
    [new StoreUnavailableError('redis at 10.0.0.3 down'), 503, 'temporarily unavailable', false],
    [new Error('disk on fire'), 500, 'An unexpected error occurred.', true],
  ])('answers %s with %i and no detail', async (failure, status, text, reported) => {
    const { app, interactions, report } = pages();
    vi.spyOn(interactions, 'details').mockRejectedValue(failure);
    const response = await app.inject({ url: '/oauth/demo/interaction/i1?x=secret' });
    expect(response.statusCode).toBe(status);
    expect(response.body).toContain(text);
    expect(response.body).not.toContain(failure.message);
    if (reported) {
      expect(report).toHaveBeenCalledWith(failure, {
        method: 'GET',
        path: '/oauth/demo/interaction/i1',
      });
    } else {
      expect(report).not.toHaveBeenCalled();
    }
  });
});
