import {
  type ClientInput,
  type GatehouseEvent,
  type LogoutMessages,
  StoreUnavailableError,
} from '@gatehouse-oidc/core';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { WEB_LOGOUT_URI } from '../support/fixtures.js';
import { browser, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, RecordingStore, TOKEN } from './harness.js';
import { postAsApp, SECOND_APP, signedInTokens, TRUSTED_APP } from './user-grants.js';

/**
 * Logout reaches every application: back-channel logout tokens (OpenID Connect Back-Channel
 * Logout 1.0) for RP-initiated logout, the sessions API and revoked grants, and the front-channel
 * frames (Front-Channel Logout 1.0) of the signed-out page, driven through real sign-ins.
 */

const LOGOUT = endpointPath('logout');
const MAIL_BCL = 'https://mail.example.com/backchannel-logout';
const CALENDAR_BCL = 'https://calendar.example.com/backchannel-logout';
const CALENDAR_FCL = 'https://calendar.example.com/frontchannel-logout?from=op';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** second-app ("mail"): back-channel only, RS256 ID tokens; trusted-app ("calendar"): both. */
const MAIL = {
  ...SECOND_APP,
  post_logout_redirect_uris: [WEB_LOGOUT_URI],
  backchannel_logout_uri: MAIL_BCL,
  backchannel_logout_session_required: true,
  id_token_signed_response_alg: 'RS256',
} satisfies ClientInput;
const CALENDAR = {
  ...TRUSTED_APP,
  post_logout_redirect_uris: [WEB_LOGOUT_URI],
  backchannel_logout_uri: CALENDAR_BCL,
  frontchannel_logout_uri: CALENDAR_FCL,
  frontchannel_logout_session_required: true,
} satisfies ClientInput;

/** What the relying parties' back-channel endpoints received. */
interface Received {
  uri: string;
  body: URLSearchParams;
}

let h: Harness;
let received: Received[];
let reported: unknown[];
let events: GatehouseEvent[];
/** What the receivers answer: a status, or never. */
let answer: number | 'never';

beforeEach(async () => {
  // Each test's own arrays: a notification of an earlier test arriving late lands in its own.
  const mine: Received[] = [];
  received = mine;
  const errors: unknown[] = [];
  reported = errors;
  const heard: GatehouseEvent[] = [];
  events = heard;
  answer = 200;
  const receiver = (async (url: string, init?: RequestInit) => {
    mine.push({ uri: url, body: new URLSearchParams(String(init?.body)) });
    if (answer === 'never') return new Promise<Response>(() => {});
    return new Response(null, { status: answer });
  }) as typeof fetch;
  h = await createHarness({
    extraClients: [MAIL, CALENDAR],
    fetch: receiver,
    onError: (error) => errors.push(error),
    onEvent: (event) => {
      heard.push(event);
    },
  });
});

type Browser = ReturnType<typeof browser>;

/** The client's tokens for a sign-in of `b` as alice. */
const tokensFor = (b: Browser, clientId: string) => signedInTokens(h, b, clientId);

/** RP-initiated logout of `b` with `params` (id_token_hint, post_logout_redirect_uri…). */
const logOut = (b: Browser, params: Record<string, string> = {}) =>
  b.visit(`${h.issuer()}/logout?${new URLSearchParams(params)}`);

/** Waits until `count` notifications arrived (they are sent in the background). */
async function notifications(count: number): Promise<Received[]> {
  for (let tick = 0; tick < 200 && received.length < count; tick++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(received).toHaveLength(count);
  return [...received].sort((a, b) => a.uri.localeCompare(b.uri));
}

/** The logout token of a notification, verified as a receiver must (Back-Channel Logout §2.6). */
async function verifiedLogoutToken(notice: Received, clientId: string) {
  expect([...notice.body.keys()]).toEqual(['logout_token']);
  const token = notice.body.get('logout_token') ?? '';
  const jwks = createLocalJWKSet((await h.get(endpointPath('jwks'))).json() as never);
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: h.issuer(),
    audience: clientId,
    typ: 'logout+jwt',
    algorithms: [clientId === MAIL.client_id ? 'RS256' : 'ES256'],
    requiredClaims: ['iat', 'exp', 'jti', 'events'],
  });
  expect(protectedHeader.kid).toEqual(expect.any(String));
  expect(payload.events).toEqual({ [EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  expect(payload.exp).toBe((payload.iat ?? 0) + 120);
  expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  return payload;
}

describe('RP-initiated logout', () => {
  it('sends every client of the session a logout token naming the session and the user', async () => {
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    const calendar = await tokensFor(laptop, CALENDAR.client_id);
    await tokensFor(laptop, 'web-app'); // no backchannel_logout_uri: told nothing
    const sid = decodeJwt(mail.idToken).sid;
    expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(decodeJwt(calendar.idToken).sid).toBe(sid);

    const response = await logOut(laptop, { id_token_hint: mail.idToken });
    expect(response.status).toBe(200);

    const [toCalendar, toMail] = await notifications(2);
    expect(toCalendar?.uri).toBe(CALENDAR_BCL);
    expect(toMail?.uri).toBe(MAIL_BCL);
    for (const [notice, clientId] of [
      [toMail, MAIL.client_id],
      [toCalendar, CALENDAR.client_id],
    ] as const) {
      const claims = await verifiedLogoutToken(notice as Received, clientId);
      expect(claims).toMatchObject({ iss: h.issuer(), aud: clientId, sub: 'alice', sid });
      expect(claims.iat).toBe(h.nowSeconds());
    }
    expect(decodeProtectedHeader(toMail?.body.get('logout_token') ?? '').alg).toBe('RS256');
    expect(reported).toEqual([]);
  });

  it('stops the refresh tokens issued in the session', async () => {
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    await logOut(laptop, { id_token_hint: mail.idToken });
    const refreshed = await postAsApp(h, MAIL.client_id, TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: mail.refreshToken ?? '',
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.json().error).toBe('invalid_grant');
  });

  /** Signs in to mail alone and logs out there, back to mail: the logout's own answer. */
  async function mailSignsInAndOut() {
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    return logOut(laptop, {
      id_token_hint: mail.idToken,
      post_logout_redirect_uri: WEB_LOGOUT_URI,
    });
  }

  it('finishes a logout the store failed half-way when the user logs out again, and notifies then', async () => {
    /** A store whose next grant revocation fails, as in an outage between two writes. */
    class RevocationFailsOnce extends RecordingStore {
      failNext = false;
      override async revokeGrant(grantId: string) {
        if (!this.failNext) return super.revokeGrant(grantId);
        this.failNext = false;
        throw new StoreUnavailableError('the store is down');
      }
    }
    let store: RevocationFailsOnce | undefined;
    h = await createHarness({
      extraClients: [MAIL, CALENDAR],
      fetch: (async (url: string, init?: RequestInit) => {
        received.push({ uri: url, body: new URLSearchParams(String(init?.body)) });
        return new Response(null, { status: 200 });
      }) as typeof fetch,
      store: (now) => {
        store = new RevocationFailsOnce({ now });
        return store;
      },
      onError: (error) => reported.push(error),
    });
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    const hint = { id_token_hint: mail.idToken };
    if (store) store.failNext = true;
    expect((await logOut(laptop, hint)).status).toBe(503);
    expect(reported).toEqual([expect.any(StoreUnavailableError)]);
    expect(received).toEqual([]);

    await logOut(laptop, hint);
    const [notice] = await notifications(1);
    expect((await verifiedLogoutToken(notice as Received, MAIL.client_id)).sub).toBe('alice');
    const refreshed = await postAsApp(h, MAIL.client_id, TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: mail.refreshToken ?? '',
    });
    expect(refreshed.json().error).toBe('invalid_grant');
    expect(await h.provider.sessions.list('test', 'alice')).toEqual([]);
  });

  it('never waits for a receiver', async () => {
    answer = 'never';
    expect((await mailSignsInAndOut()).status).toBe(302);
    await notifications(1); // still waiting for its answer
    expect(reported).toEqual([]);
  });

  it('reports a receiver that refuses, to onError and as an event, without failing the logout', async () => {
    answer = 400;
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    const { sid } = decodeJwt(mail.idToken);
    expect(
      (
        await logOut(laptop, {
          id_token_hint: mail.idToken,
          post_logout_redirect_uri: WEB_LOGOUT_URI,
        })
      ).status,
    ).toBe(302);
    await notifications(1);
    for (let tick = 0; tick < 100 && reported.length === 0; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(reported.map(String)).toEqual([
      `BackchannelLogoutError: back-channel logout to client "${MAIL.client_id}" of realm "test" failed: answered HTTP 400`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events.filter((event) => event.type === 'backchannel_logout_failed')).toEqual([
      {
        type: 'backchannel_logout_failed',
        realm: 'test',
        time: h.clock.now(),
        clientId: MAIL.client_id,
        sub: 'alice',
        sid,
        reason: 'answered HTTP 400',
      },
    ]);
  });
});

describe('front-channel logout', () => {
  it('frames each client with a frontchannel_logout_uri, then continues to the post_logout_redirect_uri', async () => {
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    await tokensFor(laptop, CALENDAR.client_id);
    const sid = String(decodeJwt(mail.idToken).sid);
    const response = await logOut(laptop, {
      id_token_hint: mail.idToken,
      post_logout_redirect_uri: WEB_LOGOUT_URI,
      state: 's&1',
    });
    expect(response.status).toBe(200);
    const frame = `${CALENDAR_FCL}&${new URLSearchParams({ iss: h.issuer(), sid })}`;
    const body = response.body ?? '';
    expect([...body.matchAll(/<iframe src="([^"]*)"/g)].map((m) => m[1])).toEqual([
      frame.replaceAll('&', '&amp;'),
    ]);
    expect(body).toContain(`<a id="gh-continue" href="${WEB_LOGOUT_URI}?state=s%261">`);
    const csp = response.headers['content-security-policy'] ?? '';
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      "style-src 'unsafe-inline'",
      'frame-src https://calendar.example.com',
      expect.stringMatching(/^script-src 'sha256-[A-Za-z0-9+/]{43}='$/),
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.cookies).toHaveLength(2); // the session cookies, cleared
  });

  it('loads the uri as registered when the client does not require iss and sid', async () => {
    const h2 = await createHarness({
      extraClients: [{ ...CALENDAR, frontchannel_logout_session_required: false }],
      fetch: (async () => new Response(null)) as typeof fetch,
    });
    const laptop = browser(h2);
    const { code } = clientParams(await laptop.signIn({ client_id: CALENDAR.client_id })).params;
    expect(code).toBeDefined();
    const response = await laptop.visit(`${h2.issuer()}/logout`);
    const confirm = /name="confirmation" value="([^"]+)"/.exec(response.body ?? '')?.[1] ?? '';
    const signedOut = await h2.post(
      LOGOUT,
      { confirmation: confirm },
      laptop.jar.header(new URL(h2.issuer())),
    );
    expect(signedOut.status).toBe(200);
    expect(signedOut.body).toContain(`<iframe src="${CALENDAR_FCL.replaceAll('&', '&amp;')}"`);
    expect(signedOut.body).not.toContain('gh-continue');
    expect(signedOut.headers['content-security-policy']).not.toContain('script-src');
  });

  it('redirects at once when no client of the session has front-channel frames', async () => {
    const laptop = browser(h);
    const mail = await tokensFor(laptop, MAIL.client_id);
    const response = await logOut(laptop, {
      id_token_hint: mail.idToken,
      post_logout_redirect_uri: WEB_LOGOUT_URI,
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(WEB_LOGOUT_URI);
  });
});

describe('the sessions and grants API', () => {
  it('sessions.end and sessions.endAll notify the clients of each session', async () => {
    const laptop = browser(h);
    const phone = browser(h);
    await tokensFor(laptop, MAIL.client_id);
    await tokensFor(phone, MAIL.client_id);
    await tokensFor(phone, CALENDAR.client_id);
    const [first, second] = await h.provider.sessions.list('test', 'alice');
    expect(await h.provider.sessions.end('test', first?.sid ?? '')).toBe(true);
    const afterEnd = await notifications(first?.clients.length ?? 0);
    for (const notice of afterEnd) {
      const clientId = notice.uri === MAIL_BCL ? MAIL.client_id : CALENDAR.client_id;
      expect((await verifiedLogoutToken(notice, clientId)).sid).toBe(first?.sid);
    }
    received.length = 0;
    expect(await h.provider.sessions.endAll('test', 'alice')).toBe(1);
    const afterAll = await notifications(second?.clients.length ?? 0);
    for (const notice of afterAll) {
      const clientId = notice.uri === MAIL_BCL ? MAIL.client_id : CALENDAR.client_id;
      expect((await verifiedLogoutToken(notice, clientId)).sid).toBe(second?.sid);
    }
  });

  it('grants.revoke tells the client of each session it had', async () => {
    const laptop = browser(h);
    const phone = browser(h);
    await tokensFor(laptop, CALENDAR.client_id);
    await tokensFor(phone, CALENDAR.client_id);
    await tokensFor(phone, MAIL.client_id);
    expect(await h.provider.grants.revoke('test', 'alice', CALENDAR.client_id)).toBe(true);
    const notices = await notifications(2);
    const sids = await Promise.all(
      notices.map(async (notice) => (await verifiedLogoutToken(notice, CALENDAR.client_id)).sid),
    );
    const sessions = await h.provider.sessions.list('test', 'alice');
    expect(sids.sort()).toEqual(sessions.map((session) => session.sid).sort());
  });

  it('grants.revoke without a session names the user alone, unless the client requires a sid', async () => {
    await tokensFor(browser(h), CALENDAR.client_id);
    await tokensFor(browser(h), MAIL.client_id);
    await h.provider.sessions.endAll('test', 'alice');
    await notifications(2);
    received.length = 0;
    expect(await h.provider.grants.revoke('test', 'alice', CALENDAR.client_id)).toBe(true);
    expect(await h.provider.grants.revoke('test', 'alice', MAIL.client_id)).toBe(true);
    const [notice] = await notifications(1);
    expect(notice?.uri).toBe(CALENDAR_BCL);
    const claims = await verifiedLogoutToken(notice as Received, CALENDAR.client_id);
    expect(claims.sub).toBe('alice');
    expect(claims).not.toHaveProperty('sid');
  });
});

describe('logout pages in the language asked for', () => {
  const PIRATE: LogoutMessages = {
    lang: 'en-x-pirate',
    confirmTitle: 'Abandon ship',
    confirmHeading: 'Abandon ship?',
    confirmAsker: (client) => `${client} bids ye leave.`,
    confirmQuestion: (issuer) => `Leave ${issuer}?`,
    signOut: 'Aye',
    signedOutTitle: 'Ashore',
    signedOutText: 'Ye be ashore.',
    continue: 'Onward',
    failedTitle: 'Run aground',
    failedText: () => 'Arr.',
  };

  it('renders the host messages the ui_locales choose, on every page', async () => {
    const asked: Array<readonly string[]> = [];
    const hp = await createHarness({
      logoutMessages: (uiLocales) => {
        asked.push(uiLocales);
        return PIRATE;
      },
    });
    const laptop = browser(hp);
    await laptop.signIn();
    const confirm = await laptop.visit(`${hp.issuer()}/logout?ui_locales=x-pirate%20fr`);
    expect(confirm.body).toContain('<html lang="en-x-pirate">');
    expect(confirm.body).toContain('<button type="submit">Aye</button>');
    const token = /name="confirmation" value="([^"]+)"/.exec(confirm.body ?? '')?.[1] ?? '';
    const done = await hp.post(
      LOGOUT,
      { confirmation: token },
      laptop.jar.header(new URL(hp.issuer())),
    );
    expect(done.body).toContain('<h1>Ashore</h1><p>Ye be ashore.</p>');
    const failed = await hp.get(LOGOUT, {}, 'client_id=nobody&ui_locales=x-pirate');
    expect(failed.status).toBe(400);
    expect(failed.body).toContain('<h1>Run aground</h1><p>Arr.</p>');
    expect(asked).toEqual([['x-pirate', 'fr'], ['x-pirate', 'fr'], ['x-pirate']]);
  });
});
