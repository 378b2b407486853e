import {
  type RecordOptions,
  type ReplaceOptions,
  StoreUnavailableError,
} from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, clientParams, isInteraction } from './browser.js';
import { createHarness, expectOAuthError, type Harness, RecordingStore, TOKEN } from './harness.js';
import {
  expectTokens,
  isActive,
  postAsApp,
  SECOND_APP,
  signedInTokens,
  TRUSTED_APP,
} from './user-grants.js';

/**
 * provider.sessions and provider.grants (docs/sessions-and-grants.md), driven through real
 * sign-ins: browsers that sign in, clients that exchange their codes, and what each call leaves
 * working or not.
 */

let h: Harness;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [SECOND_APP, TRUSTED_APP],
  });
});

type Browser = ReturnType<typeof browser>;

/** The tokens `clientId` gets for a sign-in of `b` (`sub` signs in when asked). */
const tokensFor = (b: Browser, clientId = 'web-app', sub = 'alice') =>
  signedInTokens(h, b, clientId, sub);

const refreshWorks = async (clientId: string, refreshToken: string) =>
  (
    await postAsApp(h, clientId, TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    })
  ).status === 200;

/** Whether `b` is still signed in: a prompt=none authorization gets a code rather than an error. */
async function signedIn(b: Browser, clientId = 'web-app'): Promise<boolean> {
  const { params } = clientParams(await b.authorize({ client_id: clientId, prompt: 'none' }));
  if (params.error !== undefined) expect(params.error).toBe('login_required');
  return params.code !== undefined;
}

describe('provider.sessions', () => {
  it('lists the live sessions of a user with the clients that received codes in each', async () => {
    const laptop = browser(h);
    await tokensFor(laptop, 'web-app');
    await tokensFor(laptop, SECOND_APP.client_id);
    h.clock.advance(60);
    const phone = browser(h);
    await tokensFor(phone, 'web-app');
    await tokensFor(browser(h), 'web-app', 'bob');

    const sessions = await h.provider.sessions.list('test', 'alice');
    expect(sessions).toEqual([
      {
        sid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        sub: 'alice',
        authTime: h.nowSeconds(),
        expiresAt: h.nowSeconds() + 1_209_600,
        clients: ['web-app'],
      },
      {
        sid: expect.any(String),
        sub: 'alice',
        authTime: h.nowSeconds() - 60,
        expiresAt: h.nowSeconds() - 60 + 1_209_600,
        clients: ['web-app', SECOND_APP.client_id],
      },
    ]);
    expect(sessions[0]?.sid).not.toBe(sessions[1]?.sid);
    // The cookie that signs a browser in is never shown.
    const laptopCookie = laptop.jar.header(new URL(h.issuer())).cookie ?? '';
    const secret = /gh_session-test=[^.]+\.([^;]+)/.exec(laptopCookie)?.[1] ?? 'missing';
    expect(JSON.stringify(sessions)).not.toContain(secret);
    expect(await h.provider.sessions.list('test', 'nobody')).toEqual([]);
  });

  it('ends one session: its cookie signs nobody in and every token issued in it stops working', async () => {
    const laptop = browser(h);
    const web = await tokensFor(laptop, 'web-app');
    const second = await tokensFor(laptop, SECOND_APP.client_id);
    h.clock.advance(1);
    const phone = browser(h);
    const phoneTokens = await tokensFor(phone, 'web-app');
    const [, laptopSession] = await h.provider.sessions.list('test', 'alice');

    expect(await h.provider.sessions.end('test', laptopSession?.sid ?? '')).toBe(true);

    expect(await signedIn(laptop)).toBe(false);
    expect(await isActive(h, web.accessToken)).toBe(false);
    expect(await isActive(h, second.accessToken, SECOND_APP.client_id)).toBe(false);
    expect(await refreshWorks('web-app', web.refreshToken)).toBe(false);
    expect(await refreshWorks(SECOND_APP.client_id, second.refreshToken)).toBe(false);
    // The other session goes on.
    expect(await signedIn(phone)).toBe(true);
    expect(await isActive(h, phoneTokens.accessToken)).toBe(true);
    expect(await refreshWorks('web-app', phoneTokens.refreshToken)).toBe(true);
    expect((await h.provider.sessions.list('test', 'alice')).map((s) => s.sid)).not.toContain(
      laptopSession?.sid,
    );
    expect(await h.provider.sessions.end('test', laptopSession?.sid ?? '')).toBe(false);
    expect(await h.provider.sessions.end('test', 'no-such-sid')).toBe(false);
  });

  it('ends every session of the user and nobody else’s: log out everywhere', async () => {
    const browsers = [browser(h), browser(h), browser(h)];
    const tokens = await Promise.all(browsers.map((b) => tokensFor(b)));
    const bob = browser(h);
    const bobTokens = await tokensFor(bob, 'web-app', 'bob');

    expect(await h.provider.sessions.endAll('test', 'alice')).toBe(3);

    for (const b of browsers) expect(await signedIn(b)).toBe(false);
    for (const each of tokens) {
      expect(await isActive(h, each.accessToken)).toBe(false);
      expect(await refreshWorks('web-app', each.refreshToken)).toBe(false);
    }
    expect(await h.provider.sessions.list('test', 'alice')).toEqual([]);
    expect(await signedIn(bob)).toBe(true);
    expect(await isActive(h, bobTokens.accessToken)).toBe(true);
    expect(await h.provider.sessions.endAll('test', 'alice')).toBe(0);
  });

  it('lets the user sign in again after logging out everywhere', async () => {
    const b = browser(h);
    await tokensFor(b);
    await h.provider.sessions.endAll('test', 'alice');
    const again = await tokensFor(b);
    expect(await isActive(h, again.accessToken)).toBe(true);
    expect(await refreshWorks('web-app', again.refreshToken)).toBe(true);
  });

  it('keeps the sid and the tokens of a session when its user signs in again', async () => {
    const b = browser(h);
    const first = await tokensFor(b);
    const [before] = await h.provider.sessions.list('test', 'alice');
    h.clock.advance(120);
    const again = await b.authorize({ prompt: 'login' });
    expect(isInteraction(h, again)).toBe(true);
    await b.finish(again, { login: { sub: 'alice' } });

    const [after] = await h.provider.sessions.list('test', 'alice');
    expect(after).toMatchObject({ sid: before?.sid, authTime: h.nowSeconds() });
    expect(after?.expiresAt).toBe(h.nowSeconds() + 1_209_600);
    expect(await isActive(h, first.accessToken)).toBe(true);
    expect(await h.provider.sessions.list('test', 'alice')).toHaveLength(1);
  });

  it('ends the previous user’s session when another user signs in on the browser', async () => {
    const b = browser(h);
    const alice = await tokensFor(b, 'web-app', 'alice');
    const switched = await b.authorize({ prompt: 'login' });
    await b.finish(switched, { login: { sub: 'bob' } });

    expect(await h.provider.sessions.list('test', 'alice')).toEqual([]);
    expect(await isActive(h, alice.accessToken)).toBe(false);
    expect(await h.provider.sessions.list('test', 'bob')).toHaveLength(1);
  });

  it('does not take a session cookie whose secret half is wrong', async () => {
    const b = browser(h);
    await tokensFor(b);
    const url = new URL(h.issuer());
    const cookie = b.jar.header(url).cookie ?? '';
    const forged = cookie.replace(/(gh_session-test=[^.]+\.)[^;]+/, '$1forged-secret');
    expect(forged).not.toBe(cookie);
    const jar = new CookieJar();
    jar.store(
      url,
      forged.split('; ').map((pair) => `${pair}; Path=/`),
    );
    expect(await signedIn(browser(h, jar))).toBe(false);
  });

  it('rejects an unknown realm', async () => {
    await expect(h.provider.sessions.list('nowhere', 'alice')).rejects.toThrow(
      'unknown realm "nowhere"',
    );
    await expect(h.provider.sessions.end('nowhere', 'sid')).rejects.toThrow();
    await expect(h.provider.sessions.endAll('nowhere', 'alice')).rejects.toThrow();
  });
});

describe('provider.grants', () => {
  it('lists each client the user granted, with its scopes and when, consent skipped or not', async () => {
    const b = browser(h);
    await tokensFor(b, 'web-app');
    h.clock.advance(30);
    await tokensFor(b, 'trusted-app');
    expect(await h.provider.grants.list('test', 'alice')).toEqual([
      { clientId: 'web-app', scopes: ['openid', 'profile'], createdAt: h.nowSeconds() - 30 },
      { clientId: 'trusted-app', scopes: ['openid', 'profile'], createdAt: h.nowSeconds() },
    ]);
    expect(await h.provider.grants.list('test', 'bob')).toEqual([]);
  });

  it('revokes every token the client holds for the user, in every session, and asks consent again', async () => {
    const laptop = browser(h);
    const phone = browser(h);
    const webTokens = [await tokensFor(laptop), await tokensFor(phone)];
    const second = await tokensFor(laptop, SECOND_APP.client_id);

    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(true);

    for (const tokens of webTokens) {
      expect(await isActive(h, tokens.accessToken)).toBe(false);
      expect(await refreshWorks('web-app', tokens.refreshToken)).toBe(false);
    }
    expect(await isActive(h, second.accessToken, SECOND_APP.client_id)).toBe(true);
    expect(await refreshWorks(SECOND_APP.client_id, second.refreshToken)).toBe(true);
    // Still signed in, but consent is asked again.
    const { params } = clientParams(await laptop.authorize({ prompt: 'none' }));
    expect(params.error).toBe('consent_required');
    expect((await h.provider.grants.list('test', 'alice')).map((g) => g.clientId)).toEqual([
      SECOND_APP.client_id,
    ]);
    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(false);

    // Consenting again gives working tokens in the same session.
    const renewed = await tokensFor(laptop);
    expect(await isActive(h, renewed.accessToken)).toBe(true);
    expect(await refreshWorks('web-app', renewed.refreshToken)).toBe(true);
  });

  it('revokes the tokens of a session its user renewed by signing in again', async () => {
    const DAY = 86_400;
    const b = browser(h);
    await tokensFor(b);
    // Day 13: signing in again keeps the session, and its grant, until day 27.
    h.clock.advance(13 * DAY);
    await b.finish(await b.authorize({ prompt: 'login' }), { login: { sub: 'alice' } });
    // Day 26: a code under that grant; its refresh token lives until day 56.
    h.clock.advance(13 * DAY);
    const late = await tokensFor(b);
    // Day 50: past what the grant was first registered for (day 0 + 14 + 30 days).
    h.clock.advance(24 * DAY);

    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(true);
    expect(await refreshWorks('web-app', late.refreshToken)).toBe(false);
  });

  it('keeps a consent in use: revoking it still reaches tokens issued a year after it was given', async () => {
    const DAY = 86_400;
    await tokensFor(browser(h));
    // Day 350: a new session on another browser; the consent is remembered, not given again.
    h.clock.advance(350 * DAY);
    const late = await tokensFor(browser(h));
    // Day 370: a year after the user last consented, with that refresh token still live.
    h.clock.advance(20 * DAY);

    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(true);
    expect(await refreshWorks('web-app', late.refreshToken)).toBe(false);
  });

  it('keeps a consent given again as long as the tokens of its grants, past its new year', async () => {
    const DAY = 86_400;
    h = await createHarness({
      extraClients: [SECOND_APP, TRUSTED_APP],
      realm: { session_ttl: 300 * DAY, refresh_token_ttl: 300 * DAY },
    });
    const b = browser(h);
    await tokensFor(b);
    // Day 1: the user consents again, which restarts the consent's year.
    h.clock.advance(DAY);
    const asked = await b.authorize({ prompt: 'consent' });
    await b.finish(asked, { consent: { scopes: ['openid'] } });
    // Day 299: a code in the day-0 session; its refresh token lives until day 599.
    h.clock.advance(298 * DAY);
    const late = await tokensFor(b);
    // Day 400: past that year.
    h.clock.advance(101 * DAY);

    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(true);
    expect(await refreshWorks('web-app', late.refreshToken)).toBe(false);
  });

  it('revokes a grant consent was skipped for; the next authorization gets a working one', async () => {
    const b = browser(h);
    const tokens = await tokensFor(b, 'trusted-app');
    expect(await h.provider.grants.revoke('test', 'alice', 'trusted-app')).toBe(true);
    expect(await isActive(h, tokens.accessToken, 'trusted-app')).toBe(false);
    const again = await tokensFor(b, 'trusted-app');
    expect(await isActive(h, again.accessToken, 'trusted-app')).toBe(true);
  });

  it('rejects an unknown realm', async () => {
    await expect(h.provider.grants.list('nowhere', 'alice')).rejects.toThrow();
    await expect(h.provider.grants.revoke('nowhere', 'alice', 'web-app')).rejects.toThrow();
  });
});

describe('grants of a session', () => {
  it('after a replayed code revoked the client’s grant in the session, issues under a new one', async () => {
    const b = browser(h);
    const { code } = clientParams(await b.signIn()).params;
    const exchange = () =>
      postAsApp(h, 'web-app', TOKEN, {
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
      });
    const first = expectTokens(await exchange());
    expectOAuthError(await exchange(), 400, 'invalid_grant');
    expect(await isActive(h, first.access_token as string)).toBe(false);

    const next = await tokensFor(b);
    expect(await isActive(h, next.accessToken)).toBe(true);
    expect(await refreshWorks('web-app', next.refreshToken)).toBe(true);
  });

  /**
   * Makes the races of concurrent requests on one session land at the worst moment, as often as
   * asked: `revocations` times a replay of another code of the session revokes the grant a code
   * is about to be written under; `rivalWrites` tells, per namespace, how many times another
   * request writes a record between this one's read of it and its write.
   */
  class RacedStore extends RecordingStore {
    revocations = 0;
    readonly rivalWrites = new Map<string, number>();

    override async add<T>(namespace: string, id: string, value: T, options?: RecordOptions) {
      if (namespace === 'authorization_code' && options?.grantId && this.revocations > 0) {
        this.revocations--;
        await this.revokeGrant(options.grantId);
      }
      return super.add(namespace, id, value, options);
    }

    override async replace<T>(
      namespace: string,
      id: string,
      revision: number,
      value: T,
      options?: ReplaceOptions,
    ) {
      const rivals = this.rivalWrites.get(namespace) ?? 0;
      const read = rivals > 0 && (await this.read(namespace, id));
      if (read) {
        this.rivalWrites.set(namespace, rivals - 1);
        await super.replace(namespace, id, read.revision, read.value);
      }
      return super.replace(namespace, id, revision, value, options);
    }
  }

  async function racedHarness() {
    const clock = fakeClock();
    const store = new RacedStore({ now: clock.now });
    const harness = await createHarness({ clock, store: () => store });
    const b = browser(harness);
    await signedInTokens(harness, b);
    return { harness, store, b };
  }

  it('issues under a fresh grant however many times replays revoke it during the authorization', async () => {
    const { harness, store, b } = await racedHarness();
    store.revocations = 3;
    const { code } = clientParams(await b.authorize({ prompt: 'none' })).params;
    expect(store.revocations).toBe(0);
    const tokens = expectTokens(
      await postAsApp(harness, 'web-app', TOKEN, {
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
      }),
    );
    expect(await isActive(harness, tokens.access_token as string)).toBe(true);
  });

  it('answers 503 temporarily_unavailable, not 500, when replays revoke every grant it tries', async () => {
    const { store, b } = await racedHarness();
    store.revocations = Number.POSITIVE_INFINITY;
    expectOAuthError(await b.authorize({ prompt: 'none' }), 503, 'temporarily_unavailable');
  });

  it('answers 503 temporarily_unavailable, not 500, when other requests keep writing the session', async () => {
    const { store, b } = await racedHarness();
    store.revocations = 1;
    store.rivalWrites.set('session', Number.POSITIVE_INFINITY);
    expectOAuthError(await b.authorize({ prompt: 'none' }), 503, 'temporarily_unavailable');
  });

  it('answers 503 temporarily_unavailable, not 500, when other requests keep writing the consent', async () => {
    const { store, b } = await racedHarness();
    store.rivalWrites.set('user_consent', Number.POSITIVE_INFINITY);
    expectOAuthError(await b.signIn({ prompt: 'consent' }), 503, 'temporarily_unavailable');
  });

  it('gives up ending a session other requests keep writing with StoreUnavailableError', async () => {
    const { harness, store } = await racedHarness();
    const [session] = await harness.provider.sessions.list('test', 'alice');
    store.rivalWrites.set('session', Number.POSITIVE_INFINITY);
    await expect(harness.provider.sessions.end('test', session?.sid ?? '')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
