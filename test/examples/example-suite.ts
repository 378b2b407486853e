import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  authorizationRequest,
  Browser,
  DEMO,
  driveCodeFlow,
  expectCode,
  type Page,
  PUBLIC_ORIGIN,
  type StartExample,
} from './drive-code-flow.js';

/**
 * What every example app must do, whatever its framework: sign its own users in through its own
 * pages and hand them to Gatehouse, with forms that resist CSRF and leak nothing.
 */
export function exampleSuite(name: string, start: StartExample): void {
  describe(`the ${name} example app`, () => {
    let app: Awaited<ReturnType<StartExample>>;
    const browser = () => new Browser(`http://127.0.0.1:${app.port}`);

    beforeEach(async () => {
      app = await start({ origin: PUBLIC_ORIGIN, port: 0, host: '127.0.0.1' });
    });
    afterEach(() => app.close());

    it('serves its own home page next to Gatehouse', async () => {
      const home = await browser().request(`${PUBLIC_ORIGIN}/`);
      expect(home.status).toBe(200);
      expect(home.body).toContain('/auth/oauth/demo/.well-known/openid-configuration');
    });

    it('answers the realm metadata at the host root too, where MCP clients look (RFC 8414)', async () => {
      const inserted = `${PUBLIC_ORIGIN}/.well-known/oauth-authorization-server/auth/oauth/demo`;
      const metadata = await browser().request(inserted);
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.body)).toMatchObject({ issuer: DEMO.issuer });
    });

    it('signs a user in through its own pages: code, token, ID token and userinfo', async () => {
      const { hops, idToken, userinfo } = await driveCodeFlow(browser());

      expect(idToken).toMatchObject({ sub: 'alice', amr: ['pwd'] });
      expect(userinfo).toMatchObject({
        iss: DEMO.issuer,
        aud: DEMO.client.id,
        sub: 'alice',
        name: 'Alice Liddell',
        given_name: 'Alice',
        family_name: 'Liddell',
        email: 'alice@example.com',
        email_verified: true,
      });
      const ownPages = hops.filter((hop) => /^\/(login|consent)$/.test(new URL(hop.url).pathname));
      expect(ownPages.map((hop) => `${hop.method} ${hop.status}`)).toEqual([
        'GET 200',
        'POST 303', // never 307 or 200 after a form post: the password is not sent again
        'GET 200',
        'POST 303',
      ]);
      for (const page of ownPages) if (page.method === 'GET') expectFramingRefused(page);
    });

    it('keeps the user signed in: the next authorization goes straight back to the client', async () => {
      const user = browser();
      await driveCodeFlow(user);
      const request = authorizationRequest();
      const { leftTo } = await user.navigate(request.url);
      expectCode(leftTo, request.state);
    });

    it('refuses a login form without the token bound to this browser and interaction', async () => {
      const user = browser();
      const login = (await user.navigate(authorizationRequest().url)).page;
      // Posted from another browser, which does not have the user's cookie.
      expect((await browser().submit(login, DEMO.user)).page.status).toBe(403);
      // Login CSRF: the attacker's own form, valid in the attacker's browser, posted from the user's.
      const attackersLogin = (await browser().navigate(authorizationRequest().url)).page;
      expect((await user.submit(attackersLogin, DEMO.user)).page.status).toBe(403);
      // The user's own token, but for another interaction.
      const second = (await user.navigate(authorizationRequest().url)).page;
      const crossed = await user.submit(login, { ...DEMO.user, csrf: hiddenValue(second, 'csrf') });
      expect(crossed.page.status).toBe(403);
      // None of them finished the interaction: the user's genuine post still goes through.
      expect((await user.submit(login, DEMO.user)).page.url).toContain('/consent?');
    });

    it('answers a wrong password with one generic message and echoes the username escaped', async () => {
      const user = browser();
      const login = (await user.navigate(authorizationRequest().url)).page;
      const wrong = await user.submit(login, { username: 'alice', password: 'not-her-password' });
      const unknown = await user.submit(login, { username: '<b>"x"</b>', password: 'whatever' });
      for (const failed of [wrong, unknown]) {
        expect(failed.page.status).toBe(401);
        expect(failed.page.body).toContain('Wrong username or password.');
        expectFramingRefused(failed.page);
      }
      expect(unknown.page.body).not.toContain('<b>');
      expect(unknown.page.body).not.toContain('"x"');
      // The page still works: the user can try again.
      const retried = await user.submit(unknown.page, DEMO.user);
      expect(retried.page.url).toContain('/consent?');
    });

    it('sends access_denied back to the client when the user denies consent', async () => {
      const user = browser();
      const request = authorizationRequest();
      const login = (await user.navigate(request.url)).page;
      const consent = await user.submit(login, DEMO.user);
      expect(consent.page.body).toContain('Demo web app');
      const denied = await user.submit(consent.page, { decision: 'deny' });
      expect(denied.leftTo?.searchParams.get('error')).toBe('access_denied');
      expect(denied.leftTo?.searchParams.get('state')).toBe(request.state);
      expect(denied.leftTo?.searchParams.get('iss')).toBe(DEMO.issuer);
      expect(denied.leftTo?.searchParams.has('code')).toBe(false);
    });

    it('sends access_denied back to the client when the user cancels the login', async () => {
      const user = browser();
      const login = (await user.navigate(authorizationRequest().url)).page;
      const cancelled = await user.submit(login, { action: 'cancel' });
      expect(cancelled.leftTo?.searchParams.get('error')).toBe('access_denied');
    });

    it('shows its expired page for an unknown or already finished interaction', async () => {
      const user = browser();
      const unknown = await user.request(`${PUBLIC_ORIGIN}/login?interaction=unknown`);
      expect(unknown.status).toBe(400);
      const login = (await user.navigate(authorizationRequest().url)).page;
      await user.submit(login, DEMO.user);
      const replayed = await user.submit(login, DEMO.user);
      expect(replayed.page.status).toBe(400);
      expect(replayed.page.body).toContain('Sign-in expired');
    });
  });
}

function expectFramingRefused(page: Page): void {
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(page.headers.get('cache-control')).toBe('no-store');
}

function hiddenValue(page: Page, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1];
  if (value === undefined) throw new Error(`no ${name} field on ${page.url}`);
  return value;
}
