import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectBrowser } from '../server/pages-support.js';
import { parseForms } from '../support/html-forms.js';
import { freePort } from '../support/ports.js';
import { expectOAuthError } from './relying-party-errors.js';

/**
 * The device authorization grant (RFC 8628, issue 22) against the standalone server over real
 * HTTP: openid-client v6 is the device (initiateDeviceAuthorization, pollDeviceAuthorizationGrant),
 * and a browser that keeps cookies and submits the pages' forms as written is the user: the
 * verification page, the login and consent pages, and the page that says the device may go on.
 * Then what an attacker would try: guessing codes, old codes, someone else's code, polling fast.
 */

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const PASSWORD = 'alice-device-password';

const deviceClient = (clientId: string) => ({
  client_id: clientId,
  client_name: 'Living Room TV',
  token_endpoint_auth_method: 'none',
  grant_types: [DEVICE, 'refresh_token'],
  scope: 'openid profile',
});

/** A server on a free loopback port whose clock may be moved forward. */
async function startServer(realm: Record<string, unknown> = {}) {
  let offsetMs = 0;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = parseServerConfig({
    base_url: baseUrl,
    cookie_secret: 'device-cookie-secret-0123456789abcdef0123',
    realms: [
      {
        name: 'demo',
        scopes: ['openid', 'profile'],
        device_poll_interval: 1,
        clients: [deviceClient('tv'), deviceClient('other-tv')],
        users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'Alice' } }],
        ...realm,
      },
    ],
  });
  const reports: unknown[] = [];
  const server: Server = buildServer(config, {
    report: (error) => reports.push(error),
    now: () => Date.now() + offsetMs,
  });
  await server.app.listen({ port, host: '127.0.0.1' });
  const discover = (clientId: string) =>
    oidc.discovery(new URL(`${baseUrl}/oauth/demo`), clientId, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  return {
    server,
    baseUrl,
    reports,
    discover,
    browser: (headers: Record<string, string> = {}) => new PageUser(server, baseUrl, headers),
    advance: (seconds: number) => {
      offsetMs += seconds * 1000;
    },
    close: () => server.app.close(),
  };
}

/** The user at the pages: a browser that keeps cookies and submits forms as the pages write them. */
class PageUser {
  readonly browser: InjectBrowser;

  constructor(
    server: Server,
    baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {
    this.browser = new InjectBrowser(
      {
        inject: (options) =>
          server.app.inject({ ...options, headers: { ...this.headers, ...options.headers } }),
      },
      baseUrl,
    );
  }

  /** Opens a page and submits its one form, with `fill` typed in and `button` pressed. */
  async submit(
    page: { body: string },
    fill: Record<string, string>,
    button?: { name: string; value: string },
  ) {
    const [form, ...others] = parseForms(page.body, this.browser.lastUrl);
    if (!form || others.length > 0) throw new Error(`expected one form: ${page.body}`);
    expect(form.method).toBe('POST');
    const fields = Object.fromEntries(form.fields);
    const typed = { ...fields, ...fill, ...(button ? { [button.name]: button.value } : {}) };
    return this.browser.follow(await this.browser.post(form.action.href, typed));
  }

  /** From the verification page (with the code filled in or typed) to the page it ends on. */
  async answer(url: string, decision: 'allow' | 'deny', typed?: string) {
    const page = await this.browser.get(url);
    expect(page.statusCode).toBe(200);
    const login = await this.submit(page, typed === undefined ? {} : { user_code: typed });
    const consent = login.body.includes('name="password"')
      ? await this.submit(login, { username: 'alice', password: PASSWORD })
      : login;
    expect(consent.body).toContain('name="decision"');
    const end = await this.submit(consent, {}, { name: 'decision', value: decision });
    return { consent, end };
  }
}

describe('openid-client drives the device flow through the standalone pages', () => {
  let gatehouse: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    gatehouse = await startServer();
  }, 30_000);
  afterAll(async () => {
    await gatehouse?.close();
    expect(gatehouse?.reports).toEqual([]);
  });

  it('approved in the browser: the device polls its tokens, refreshes them, and they revoke', async () => {
    const tv = await gatehouse.discover('tv');
    expect(tv.serverMetadata().device_authorization_endpoint).toBe(
      `${gatehouse.baseUrl}/oauth/demo/device/auth`,
    );
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid profile' });
    expect(started).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${gatehouse.baseUrl}/oauth/demo/device`,
      expires_in: 600,
      interval: 1,
    });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);

    const user = gatehouse.browser();
    const { consent, end } = await user.answer(started.verification_uri_complete ?? '', 'allow');
    expect(consent.body).toContain(started.user_code);
    expect(consent.body).toContain('Living Room TV');
    expect(end.statusCode).toBe(200);
    expect(end.body).toContain('id="device-approved"');

    const tokens = await polling;
    expect(tokens.token_type).toBe('bearer');
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice', aud: 'tv' });
    const userinfo = await oidc.fetchUserInfo(tv, tokens.access_token, 'alice');
    expect(userinfo).toMatchObject({ sub: 'alice', name: 'Alice' });

    const refreshed = await oidc.refreshTokenGrant(tv, tokens.refresh_token ?? '');
    await oidc.tokenRevocation(tv, refreshed.refresh_token ?? '');
    await expectOAuthError(oidc.refreshTokenGrant(tv, refreshed.refresh_token ?? ''), {
      status: 400,
      error: 'invalid_grant',
    });

    // Spent: the device_code gives nothing more, the user code names nothing any more.
    await expectOAuthError(oidc.pollDeviceAuthorizationGrant(tv, started), {
      status: 400,
      error: 'invalid_grant',
    });
    const again = await user.browser.get(started.verification_uri_complete ?? '');
    const refused = await user.submit(again, {});
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('This code is not valid or has expired');
  });

  it('the user types the code by hand, in French, in lower case with a space', async () => {
    const tv = await gatehouse.discover('tv');
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);
    const user = gatehouse.browser({ 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    const typed = started.user_code.replace('-', ' ').toLowerCase();
    const { consent, end } = await user.answer(started.verification_uri, 'allow', typed);
    expect(consent.body).toContain('<html lang="fr">');
    expect(consent.body).toContain(
      `Vérifiez que votre appareil affiche ce code : ${started.user_code}`,
    );
    expect(end.body).toContain('Appareil connecté');
    expect((await polling).scope).toBe('openid');
  });

  it('denied in the browser: the device hears access_denied, the page says it got nothing', async () => {
    const tv = await gatehouse.discover('tv');
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid profile' });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);
    const { end } = await gatehouse
      .browser()
      .answer(started.verification_uri_complete ?? '', 'deny');
    expect(end.body).toContain('id="device-denied"');
    await expectOAuthError(polling, { status: 400, error: 'access_denied' });
  });

  it('a code approved for one device is no use to another, whose own code stays pending', async () => {
    const tv = await gatehouse.discover('tv');
    const otherTv = await gatehouse.discover('other-tv');
    const mine = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
    const theirs = await oidc.initiateDeviceAuthorization(otherTv, { scope: 'openid' });
    await gatehouse.browser().answer(mine.verification_uri_complete ?? '', 'allow');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expectOAuthError(
      oidc.genericGrantRequest(otherTv, DEVICE, { device_code: mine.device_code }),
      { status: 400, error: 'invalid_grant' },
    );
    await expectOAuthError(
      oidc.genericGrantRequest(otherTv, DEVICE, { device_code: theirs.device_code }),
      { status: 400, error: 'authorization_pending' },
    );
    const tokens = await oidc.pollDeviceAuthorizationGrant(tv, mine);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: 'tv', sub: 'alice' });
  });

  it('slow_down for polls sooner than the interval, which do not cancel the request: openid-client then gets the tokens', async () => {
    const tv = await gatehouse.discover('tv');
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
    const poll = () => oidc.genericGrantRequest(tv, DEVICE, { device_code: started.device_code });
    await expectOAuthError(poll(), { status: 400, error: 'slow_down' });
    await expectOAuthError(poll(), { status: 400, error: 'slow_down' });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);
    await gatehouse.browser().answer(started.verification_uri_complete ?? '', 'allow');
    expect((await polling).access_token).toEqual(expect.any(String));
  }, 30_000);
});

describe('abuse of the standalone device flow', () => {
  it('guessing user codes hits the login throttle of the address, which then refuses even a right code', async () => {
    // The request outlives the throttle's 15-minute window.
    const gatehouse = await startServer({ device_code_ttl: 1800 });
    try {
      const tv = await gatehouse.discover('tv');
      const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
      const user = gatehouse.browser();
      const page = await user.browser.get(started.verification_uri);
      const statuses: number[] = [];
      // The address limit of the login throttle: 20 failures in 15 minutes.
      for (let guess = 0; guess < 21; guess++) {
        const answer = await user.submit(page, {
          user_code: guess % 2 ? 'BCDF-GHJK' : 'ZZZZ ZZZZ',
        });
        statuses.push(answer.statusCode);
      }
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
      expect(statuses[20]).toBe(429);
      const right = await user.submit(page, { user_code: started.user_code });
      expect(right.statusCode).toBe(429);
      expect(right.body).toContain('Too many failed sign-in attempts');
      // Once the window has passed, the right code leads on to the login page.
      gatehouse.advance(16 * 60);
      const later = await user.submit(page, { user_code: started.user_code });
      expect(later.body).toContain('name="password"');
    } finally {
      await gatehouse.close();
    }
  }, 30_000);

  it('an expired code is refused at the page, and the device hears expired_token', async () => {
    const gatehouse = await startServer({ device_code_ttl: 60 });
    try {
      const tv = await gatehouse.discover('tv');
      const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
      expect(started.expires_in).toBe(60);
      gatehouse.advance(61);
      const user = gatehouse.browser();
      const page = await user.browser.get(started.verification_uri_complete ?? '');
      const refused = await user.submit(page, {});
      expect(refused.statusCode).toBe(400);
      await expectOAuthError(
        oidc.genericGrantRequest(tv, DEVICE, { device_code: started.device_code }),
        { status: 400, error: 'expired_token' },
      );
    } finally {
      await gatehouse.close();
    }
  });

  it('the form is refused without this browser’s CSRF token', async () => {
    const gatehouse = await startServer();
    try {
      const answer = await gatehouse.server.app.inject({
        method: 'POST',
        url: '/oauth/demo/device',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'user_code=BCDF-GHJK',
      });
      expect(answer.statusCode).toBe(403);
    } finally {
      await gatehouse.close();
    }
  });
});
