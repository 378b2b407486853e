import { createProvider, InteractionError, type InteractionResult } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import {
  clientKeyPair,
  SECRETS,
  TEST_ACCOUNTS,
  testRealm,
  WEB_REDIRECT_URI,
} from '../support/fixtures.js';
import {
  browser,
  CODE_VERIFIER,
  clientParams,
  interactionId,
  isInteraction,
  S256_CHALLENGE,
} from './browser.js';
import { createHarness, endpointPath, expectOAuthError, type Harness } from './harness.js';
import { TRUSTED_APP } from './user-grants.js';

let h: Harness;
let b: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [TRUSTED_APP],
  });
  b = browser(h);
});

const idTokenOf = async (params: Record<string, string> = {}) =>
  decodeJwt(
    clientParams(await b.signIn({ response_type: 'id_token', ...params })).params.id_token ?? '',
  );

describe('interactions handed to the host', () => {
  it('sends the browser to the host with what its login page needs', async () => {
    const response = await b.authorize({
      ui_locales: 'fr en',
      login_hint: 'alice@example.com',
      max_age: '300',
      acr_values: 'urn:mace:incommon:iap:silver',
    });
    expect(response.status).toBe(302);
    expect(isInteraction(h, response)).toBe(true);
    expect(await b.details(response)).toEqual({
      id: interactionId(response),
      realm: 'test',
      prompt: 'login',
      client: { id: 'web-app', name: 'Web App' },
      redirectUri: 'https://app.example.com/cb',
      scopes: ['openid', 'profile'],
      requestedPrompt: [],
      maxAge: 300,
      acrValues: ['urn:mace:incommon:iap:silver'],
      uiLocales: ['fr', 'en'],
      loginHint: 'alice@example.com',
    });
  });

  it('asks for consent after the login, for the signed-in user', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    expect(await b.details(consent)).toMatchObject({
      prompt: 'consent',
      sub: 'alice',
      scopes: ['openid', 'profile'],
    });
  });

  it.each([
    ['a consent result for a login', { consent: { scopes: ['openid'] } }],
    ['an empty sub', { login: { sub: '' } }],
    ['a sub with spaces', { login: { sub: 'alice smith' } }],
    ['an auth_time in the future', { login: { sub: 'alice', authTime: 1_893_456_001 } }],
    ['a fractional auth_time', { login: { sub: 'alice', authTime: 1.5 } }],
    ['amr that is not a list', { login: { sub: 'alice', amr: 'pwd' } }],
    ['an unknown error', { error: 'server_error' }],
    [
      'consent scopes that are not a list',
      { login: { sub: 'alice' }, consent: { scopes: 'openid' } },
    ],
  ])('refuses %s from the host', async (_, result) => {
    const login = await b.authorize();
    await expect(
      h.provider.interactions.finish(
        'test',
        interactionId(login),
        result as InteractionResult,
        b.pageCookies(login),
      ),
    ).rejects.toBeInstanceOf(InteractionError);
    // The interaction is still there to be finished properly.
    expect(isInteraction(h, await b.finish(login, { login: { sub: 'alice' } }))).toBe(true);
  });

  it('refuses an unknown interaction, and a login of another user at consent', async () => {
    const login = await b.authorize();
    await expect(
      h.provider.interactions.finish(
        'test',
        'no-such-interaction',
        { login: { sub: 'alice' } },
        b.pageCookies(login),
      ),
    ).rejects.toBeInstanceOf(InteractionError);
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    await expect(
      h.provider.interactions.finish(
        'test',
        interactionId(consent),
        { login: { sub: 'bob' } },
        b.pageCookies(consent),
      ),
    ).rejects.toBeInstanceOf(InteractionError);
  });

  it('records only one of two concurrent results', async () => {
    const login = await b.authorize();
    const finish = (sub: string) =>
      h.provider.interactions.finish(
        'test',
        interactionId(login),
        { login: { sub } },
        b.pageCookies(login),
      );
    const results = await Promise.allSettled([finish('alice'), finish('bob')]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });

  it('shows a login link forwarded to another browser nothing, and lets it finish nothing', async () => {
    const login = await b.authorize();
    const victim = browser(h, new CookieJar());
    await victim.visit(`${h.issuer()}/.well-known/openid-configuration`);
    expect(await victim.details(login)).toBeUndefined();
    await expect(victim.finish(login, { login: { sub: 'alice' } })).rejects.toBeInstanceOf(
      InteractionError,
    );
    expect(await b.details(login)).toMatchObject({ prompt: 'login' });
  });

  it('lets only the browser that started an interaction resume it, once', async () => {
    const login = await b.authorize();
    const resume = await h.provider.interactions.finish(
      'test',
      interactionId(login),
      { login: { sub: 'alice' } },
      b.pageCookies(login),
    );
    const attacker = browser(h, new CookieJar());
    const stolen = await attacker.visit(resume);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toContain('invalid_request');

    expect(isInteraction(h, await b.visit(resume))).toBe(true);
    const replay = await b.visit(resume);
    expect(replay.status).toBe(400);
  });

  it('forgets an interaction left too long', async () => {
    const login = await b.authorize();
    h.clock.advance(901);
    await expect(b.finish(login, { login: { sub: 'alice' } })).rejects.toBeInstanceOf(
      InteractionError,
    );
  });

  it('redirects a login_required result from the host to the client', async () => {
    const response = await b.finish(await b.authorize(), { error: 'login_required' });
    expect(clientParams(response).params.error).toBe('login_required');
  });
});

describe('sessions', () => {
  it('sets an HttpOnly, Secure, SameSite=Lax __Host- session cookie named after the realm', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    const session = consent.cookies?.find((cookie) => cookie.startsWith('__Host-gh_session-test='));
    expect(session).toMatch(
      /^__Host-gh_session-test=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; SameSite=Lax; Max-Age=1209600; HttpOnly; Secure$/,
    );
  });

  it('keeps the sessions of two realms on one origin apart, each in its own cookie', async () => {
    const two = await createHarness({
      otherRealms: [testRealm(await clientKeyPair(), { name: 'second' })],
    });
    const jar = new CookieJar();
    const inTest = browser(two, jar, 'test');
    const inSecond = browser(two, jar, 'second');
    await inTest.signIn({}, 'alice');
    const silent = await inSecond.authorize({ prompt: 'none' });
    expect(clientParams(silent).params.error).toBe('login_required');
    await inSecond.signIn({}, 'bob');
    const subOf = async (realm: ReturnType<typeof browser>) =>
      decodeJwt(
        clientParams(await realm.authorize({ prompt: 'none', response_type: 'id_token' })).params
          .id_token ?? '',
      ).sub;
    expect(await subOf(inTest)).toBe('alice');
    expect(await subOf(inSecond)).toBe('bob');
    expect(jar.header(new URL(two.issuer())).cookie).toMatch(
      /__Host-gh_session-test=.*__Host-gh_session-second=|__Host-gh_session-second=.*__Host-gh_session-test=/,
    );
  });

  it('signs in silently the second time (single sign-on, remembered consent)', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'none' });
    expect(clientParams(response).params.code).toBeDefined();
  });

  it('answers consent_required for prompt=none when consent is missing', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'none', scope: 'openid email' });
    expect(clientParams(response).params.error).toBe('consent_required');
  });

  it('asks for consent again with prompt=consent', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'consent' });
    const details = await b.details(response);
    expect(details?.prompt).toBe('consent');
  });

  it('grants only what the user consented to', async () => {
    const login = await b.authorize({ response_type: 'code token', scope: 'openid profile email' });
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'email', 'admin'] } });
    expect(clientParams(done).params.scope).toBe('openid email');
  });

  it('denies when the user consents to nothing that was asked', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    const done = await b.finish(consent, { consent: { scopes: [] } });
    expect(clientParams(done).params.error).toBe('access_denied');
  });

  it('skips consent for a client configured so, and still records the grant', async () => {
    const consent = await b.finish(await b.authorize({ client_id: 'trusted-app' }), {
      login: { sub: 'alice' },
    });
    expect(clientParams(consent).params.code).toBeDefined();
    expect(await h.provider.grants.list('test', 'alice')).toEqual([
      { clientId: 'trusted-app', scopes: ['openid', 'profile'], createdAt: h.nowSeconds() },
    ]);
  });

  it('re-authenticates for prompt=login, and auth_time moves', async () => {
    const first = await idTokenOf();
    h.clock.advance(60);
    const again = await b.authorize({ prompt: 'login', response_type: 'id_token' });
    expect(isInteraction(h, again)).toBe(true);
    const done = await b.finish(again, { login: { sub: 'alice' } });
    const second = decodeJwt(clientParams(done).params.id_token ?? '');
    expect(second.auth_time).toBe((first.auth_time as number) + 60);
  });

  it('re-authenticates when max_age has passed, and not before', async () => {
    await b.signIn();
    h.clock.advance(100);
    expect(clientParams(await b.authorize({ max_age: '100' })).params.code).toBeDefined();
    expect(isInteraction(h, await b.authorize({ max_age: '99' }))).toBe(true);
    expect(clientParams(await b.authorize({ max_age: '99', prompt: 'none' })).params.error).toBe(
      'login_required',
    );
    expect(isInteraction(h, await b.authorize({ max_age: '0' }))).toBe(true);
  });

  it('ends with the realm session lifetime', async () => {
    await b.signIn();
    h.clock.advance(1_209_600);
    expect(clientParams(await b.authorize({ prompt: 'none' })).params.error).toBe('login_required');
  });

  it('issues a new session cookie at every login (no session fixation)', async () => {
    const issuer = new URL(h.issuer());
    b.jar.set('__Host-gh_session-test', 'planted-by-an-attacker', '/');
    await b.signIn();
    const first = b.jar.get('__Host-gh_session-test', issuer);
    expect(first).not.toBe('planted-by-an-attacker');
    await b.signIn({ prompt: 'login' });
    expect(b.jar.get('__Host-gh_session-test', issuer)).not.toBe(first);
  });

  it('switches user when someone else signs in at prompt=login', async () => {
    expect((await idTokenOf()).sub).toBe('alice');
    const response = await b.authorize({ prompt: 'login', response_type: 'id_token' });
    const consent = await b.finish(response, { login: { sub: 'bob' } });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    expect(decodeJwt(clientParams(done).params.id_token ?? '').sub).toBe('bob');
  });

  it('carries acr and amr from the login into the id_token', async () => {
    const login = await b.authorize({ response_type: 'id_token' });
    const consent = await b.finish(login, {
      login: { sub: 'alice', acr: 'urn:example:loa:2', amr: ['pwd', 'otp'] },
    });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    expect(decodeJwt(clientParams(done).params.id_token ?? '')).toMatchObject({
      acr: 'urn:example:loa:2',
      amr: ['pwd', 'otp'],
    });
  });

  it('changes session_state when the user signs in again', async () => {
    const first = clientParams(await b.signIn()).params.session_state;
    const second = clientParams(await b.signIn({ prompt: 'login' })).params.session_state;
    expect(first?.split('.')[0]).not.toBe(second?.split('.')[0]);
  });
});

describe('what a session may still do', () => {
  it('authorizes nothing once its account is gone', async () => {
    const users = new Map(Object.entries({ alice: { name: 'Alice' } }));
    const h2 = await createHarness({
      accounts: {
        findAccount: async (_realm, sub) => {
          const claims = users.get(sub);
          return claims && { sub, claims };
        },
      },
    });
    const b2 = browser(h2);
    const { code } = clientParams(await b2.signIn()).params;
    users.delete('alice');
    expect(clientParams(await b2.authorize({ prompt: 'none' })).params.error).toBe(
      'login_required',
    );
    const exchange = await h2.post(endpointPath('token'), {
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
      client_id: 'web-app',
      client_secret: SECRETS.web,
    });
    expectOAuthError(exchange, 400, 'invalid_grant');
  });

  it('treats max_age=0 as a new sign-in, even in the second of the last one', async () => {
    await b.signIn();
    expect(isInteraction(h, await b.authorize({ max_age: '0' }))).toBe(true);
    expect(clientParams(await b.authorize({ max_age: '0', prompt: 'none' })).params.error).toBe(
      'login_required',
    );
  });

  it('refuses a login whose auth_time is older than max_age', async () => {
    const login = await b.authorize({ max_age: '60' });
    const done = await b.finish(login, {
      login: { sub: 'alice', authTime: h.nowSeconds() - 61 },
    });
    expect(clientParams(done).params.error).toBe('login_required');
  });

  it('stops a sign-in whose client lost the redirect_uri meanwhile', async () => {
    const h2 = await createHarness();
    const realm = testRealm(h2.keys);
    let current = realm;
    const loader = createProvider({
      baseUrl: h2.issuer().replace(/\/oauth\/test$/, ''),
      realms: () => current,
      store: h2.store,
      now: h2.clock.now,
      accounts: TEST_ACCOUNTS,
    });
    const send = async (url: string, cookie?: string) => {
      const target = new URL(url);
      return loader.handle({
        method: 'GET',
        path: target.pathname,
        query: target.search.slice(1),
        headers: cookie ? { cookie } : {},
      });
    };
    const started = await send(
      `${h2.issuer()}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'web-app',
        redirect_uri: WEB_REDIRECT_URI,
        scope: 'openid',
        code_challenge: S256_CHALLENGE,
        code_challenge_method: 'S256',
      })}`,
    );
    const cookie = (started.cookies?.[0] ?? '').split(';')[0];
    const id = (started.headers.location ?? '').split('/').pop() ?? '';
    const resume = await loader.interactions.finish(
      'test',
      id,
      { login: { sub: 'alice' } },
      cookie,
    );
    current = {
      ...realm,
      clients: realm.clients?.map((client) =>
        client.client_id === 'web-app'
          ? { ...client, redirect_uris: ['https://app.example.com/new'] }
          : client,
      ),
    };
    const response = await send(resume, cookie);
    expect(response.status).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });
});
