import { createHash, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../support/chromium.js';
import { BASE_URL, createHarness, endpointPath, type Harness } from './harness.js';
import { userSessions } from './user-session.js';

const CHECK_SESSION = endpointPath('session/check');
/** The relying party: another origin of the same site as the provider (id.example.com). */
const RP_ORIGIN = 'https://app.example.com';

/**
 * The relying party's side (Session Management 1.0 §3.2): frame the iframe, post
 * `client_id session_state`, read the answer from the provider's origin.
 */
const RP_SCRIPT = `
async function ask(src, opOrigin, messages) {
  const frame = document.createElement('iframe');
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve));
  frame.src = src;
  document.body.append(frame);
  await loaded;
  const answers = [];
  for (const message of messages) {
    answers.push(await new Promise((resolve) => {
      const timer = setTimeout(() => finish('no answer'), 3000);
      const listener = (event) => { if (event.origin === opOrigin) finish(event.data); };
      function finish(answer) {
        clearTimeout(timer);
        window.removeEventListener('message', listener);
        resolve(answer);
      }
      window.addEventListener('message', listener);
      frame.contentWindow.postMessage(message, opOrigin);
    }));
  }
  return answers;
}`;

let h: Harness;
let users: Awaited<ReturnType<typeof userSessions>>;
beforeAll(async () => {
  h = await createHarness();
  users = await userSessions(h);
});

describe('the check_session_iframe page', () => {
  it('is frameable, never cached, and runs only its own script (by hash)', async () => {
    const response = await h.get(CHECK_SESSION);
    expect(response.status).toBe(200);
    expect(response.headers['x-frame-options']).toBeUndefined();
    const script = /<script>([\s\S]*)<\/script>/.exec(response.body ?? '')?.[1] ?? '';
    expect(script).toContain("addEventListener('message'");
    const hash = createHash('sha256').update(script).digest('base64');
    expect(response.headers).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'content-security-policy': `default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`,
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
  });

  it('answers GET and HEAD only', async () => {
    const head = await h.provider.handle({
      method: 'HEAD',
      path: CHECK_SESSION,
      query: '',
      headers: {},
    });
    expect({ status: head.status, body: head.body }).toEqual({ status: 200, body: undefined });
    expect((await h.post(CHECK_SESSION, {})).status).toBe(405);
  });
});

/**
 * The page in a real browser, framed by a relying party's page: proves that the CSP hash lets the
 * script run, that the page may be framed, and that it reads the cookie and WebCrypto as the
 * Node test of the script assumes. Both origins are served by request interception.
 */
describe.skipIf(skipWithoutChromium('check_session_iframe in Chromium'))(
  'the check_session_iframe in Chromium',
  () => {
    let browser: Browser;
    let context: BrowserContext;

    beforeAll(async () => {
      browser = await launchChromium();
      context = await browser.newContext();
      await context.route(`${BASE_URL}/**`, async (route) => {
        const request = route.request();
        const url = new URL(request.url());
        const response = await h.provider.handle({
          method: request.method(),
          path: url.pathname,
          query: url.search.slice(1),
          headers: await request.allHeaders(),
        });
        await route.fulfill({
          status: response.status,
          headers: response.headers,
          body: response.body ?? '',
        });
      });
      await context.route(`${RP_ORIGIN}/**`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: `<!doctype html><title>Relying party</title><script>${RP_SCRIPT}</script>`,
        }),
      );
    });

    afterAll(async () => {
      await browser?.close();
    });

    /**
     * Frames the iframe in the relying party's page and posts each message, collecting the answers.
     */
    async function ask(messages: string[]): Promise<unknown[]> {
      const page = await context.newPage();
      try {
        await page.goto(`${RP_ORIGIN}/`);
        const args = [`${h.issuer()}/session/check`, BASE_URL, messages].map((arg) =>
          JSON.stringify(arg),
        );
        return await page.evaluate(`ask(${args.join(', ')})`);
      } finally {
        await page.close();
      }
    }

    it('answers unchanged, changed and error as the session goes', async () => {
      const { record } = await users.signIn();
      const other = await users.signIn();
      await context.addCookies([
        {
          name: 'gh_browser_state',
          value: record.browserState,
          domain: new URL(BASE_URL).hostname,
          path: '/oauth/test',
          secure: true,
          sameSite: 'None',
        },
      ]);
      const current = sessionState('web-app', `${RP_ORIGIN}/cb`, record.browserState);
      const stale = sessionState('web-app', `${RP_ORIGIN}/cb`, other.record.browserState);
      const elsewhere = sessionState(
        'web-app',
        'https://elsewhere.example.com/cb',
        record.browserState,
      );
      expect(
        await ask([`web-app ${current}`, `web-app ${stale}`, `web-app ${elsewhere}`, 'web-app']),
      ).toEqual(['unchanged', 'changed', 'changed', 'error']);

      await context.clearCookies();
      expect(await ask([`web-app ${current}`])).toEqual(['changed']);
    });
  },
);

/**
 * A `session_state` as OpenID Connect Session Management 1.0 §3 defines it, computed here from
 * the spec rather than by the provider's own code: hex SHA-256 of
 * `client_id origin browser_state salt`, then `.salt`.
 */
function sessionState(clientId: string, redirectUri: string, browserState: string): string {
  const salt = randomBytes(8).toString('base64url');
  const origin = new URL(redirectUri).origin;
  const digest = createHash('sha256').update(`${clientId} ${origin} ${browserState} ${salt}`);
  return `${digest.digest('hex')}.${salt}`;
}
