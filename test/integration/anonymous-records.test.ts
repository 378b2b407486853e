import { beforeEach, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import { browser, clientParams, interactionId } from './browser.js';
import { createHarness, endpointPath, type Harness, RecordingStore } from './harness.js';
import { userSessions } from './user-session.js';

/**
 * What requests nobody authenticated may make the provider keep (issue 13, finding 2): every
 * GET of the authorization endpoint without a session used to store its interaction for 15
 * minutes without bound, and every GET of the logout endpoint a confirmation.
 */
const PER_REALM = 50;

let h: Harness;
let store: RecordingStore;
beforeEach(async () => {
  h = await createHarness({
    limits: {
      interactionsPerRealm: PER_REALM,
      logoutConfirmationsPerRealm: PER_REALM,
      deviceRequestsPerRealm: PER_REALM,
    },
    extraClients: [
      {
        client_id: 'tv',
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        scope: 'openid',
      },
    ],
    store: (now) => {
      store = new RecordingStore({ now });
      return store;
    },
  });
});

/** `count` authorization requests, each from a browser without cookies, as a flood sends them. */
async function flood(count: number, params: Record<string, string> = {}) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(interactionId(await browser(h).authorize(params)));
  return ids;
}

const live = async (ids: readonly string[]) =>
  (await Promise.all(ids.map((id) => store.get('interaction', `test/${id}`)))).filter(Boolean)
    .length;

describe('interactions', () => {
  it('keeps at most interactionsPerRealm waiting for their page, dropping the oldest', async () => {
    const ids = await flood(PER_REALM * 4);
    expect(await live(ids)).toBe(PER_REALM);
    expect(await live(ids.slice(-PER_REALM))).toBe(PER_REALM);
    expect(store.metrics().evicted).toBe(PER_REALM * 3);
  });

  it('lets a user whose page was shown sign in through a flood of new requests', async () => {
    const user = browser(h);
    const started = await user.authorize();
    expect((await user.details(started))?.prompt).toBe('login');
    await flood(PER_REALM * 4);
    const done = await user.finish(started, {
      login: { sub: 'alice' },
      consent: { scopes: ['openid', 'profile'] },
    });
    expect(clientParams(done).params.code).toBeDefined();
  });

  it('gives an interaction two minutes to be shown, then fifteen to be finished', async () => {
    const neverShown = browser(h);
    const forgotten = await neverShown.authorize();
    h.clock.advance(121);
    expect(await neverShown.details(forgotten)).toBeUndefined();

    const user = browser(h);
    const started = await user.authorize();
    h.clock.advance(119);
    expect(await user.details(started)).toBeDefined();
    h.clock.advance(899);
    expect(await user.details(started)).toBeDefined();
    h.clock.advance(2);
    expect(await user.details(started)).toBeUndefined();
  });

  it('keeps twenty interactions per browser, dropping its oldest', async () => {
    const jar = new CookieJar();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(interactionId(await browser(h, jar).authorize()));
    expect(await live(ids.slice(0, 5))).toBe(0);
    expect(await live(ids.slice(5))).toBe(20);
  });

  it('refuses, at the client, a request too large to keep while the user signs in', async () => {
    const response = await browser(h).authorize({
      state: 'ok',
      nonce: '\u0001'.repeat(2048),
    });
    expect(clientParams(response).params).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('too large to keep'),
      state: 'ok',
    });
  });

  it('stores the largest request it accepts in about 4 KB', async () => {
    const [id] = await flood(1, {
      state: 's'.repeat(2048),
      nonce: 'n'.repeat(1024),
      login_hint: 'h'.repeat(400),
    });
    const record = await store.get('interaction', `test/${id}`);
    // 0.4 stored up to 7 KB with parameters of printable characters, 30 KB with control ones.
    expect(JSON.stringify(record).length).toBeLessThan(4096 + 256);
  });
});

describe('logout confirmations', () => {
  it('keeps five per session and interactionsPerRealm per realm', async () => {
    const users = await userSessions(h);
    const { cookie } = await users.signIn('alice');
    const logout = () => h.get(endpointPath('logout'), { cookie }, '');
    const tokens: string[] = [];
    for (let i = 0; i < 8; i++) {
      const page = (await logout()).body ?? '';
      tokens.push(/name="confirmation" value="([^"]+)"/.exec(page)?.[1] ?? '');
    }
    expect(store.metrics().evicted).toBe(3);
    const oldest = await h.post(
      endpointPath('logout'),
      { confirmation: tokens[0] ?? '' },
      { cookie },
    );
    expect(oldest.status).toBe(400);
    const newest = await h.post(
      endpointPath('logout'),
      { confirmation: tokens[7] ?? '' },
      { cookie },
    );
    expect(newest.status).toBe(200);

    for (let i = 0; i < PER_REALM + 10; i++) {
      const other = await users.signIn('bob');
      await h.get(endpointPath('logout'), { cookie: other.cookie }, '');
    }
    // 65 confirmations for 50 places: alice's five (the used one counts until it expires) and
    // bob's sixty.
    expect(store.metrics().evicted).toBe(3 + 15);
  });
});

describe('device authorization requests', () => {
  it('keeps at most deviceRequestsPerRealm of a public client, dropping the oldest', async () => {
    const ask = async () =>
      (await h.post(endpointPath('device/auth'), { client_id: 'tv', scope: 'openid' })).json();
    const first = await ask();
    for (let i = 0; i < PER_REALM * 2; i++) await ask();
    const newest = await ask();
    // Each request is two records (its own and its user code's), each under its own cap.
    expect(store.metrics().evicted).toBe((PER_REALM + 2) * 2);
    const poll = (device: Record<string, unknown>) =>
      h.post(endpointPath('token'), {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: String(device.device_code),
        client_id: 'tv',
      });
    h.clock.advance(5);
    expect((await poll(first)).json().error).toBe('invalid_grant');
    expect((await poll(newest)).json().error).toBe('authorization_pending');
    expect(
      await h.provider.device.start('test', String(first.user_code), { cookieHeader: undefined }),
    ).toBeUndefined();
    expect(
      await h.provider.device.start('test', String(newest.user_code), { cookieHeader: undefined }),
    ).toBeDefined();
  });
});
