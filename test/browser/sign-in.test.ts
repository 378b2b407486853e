import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipWithoutChromium } from '../support/chromium.js';
import { basicAuthorization } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';

const CLIENT_SECRET = 'browser-app-secret-0123456789abcdef';
const PASSWORD = 'alice-browser-password';

const skipped = skipWithoutChromium('browser test');

/** A relying party's callback: answers a plain page, and keeps the body of each POST to it. */
async function startCallback(): Promise<{ server: HttpServer; origin: string; posted: string[] }> {
  const posted: string[] = [];
  const server = createServer(async (request, response) => {
    if (request.method === 'POST') {
      let body = '';
      for await (const chunk of request) body += chunk;
      posted.push(body);
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('callback reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, posted };
}

describe.skipIf(skipped)('sign-in in a real browser (Chromium)', () => {
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let gatehouse: Server;
  let issuer: string;

  beforeAll(async () => {
    callback = await startCallback();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    issuer = `${baseUrl}/oauth/demo`;
    const config = parseServerConfig({
      base_url: baseUrl,
      cookie_secret: randomBytes(32).toString('base64url'),
      realms: [
        {
          name: 'demo',
          scopes: ['openid', 'profile', 'email'],
          clients: [
            {
              client_id: 'browser-app',
              client_name: 'Browser test app',
              client_secret: CLIENT_SECRET,
              token_endpoint_auth_method: 'client_secret_basic',
              redirect_uris: [`${callback.origin}/callback`],
              grant_types: ['authorization_code'],
              scope: 'openid profile email',
              require_pkce: true,
            },
          ],
          users: [
            {
              sub: 'alice',
              username: 'alice',
              password: PASSWORD,
              claims: { name: 'Alice Liddell', email: 'alice@example.com' },
            },
          ],
        },
      ],
    });
    gatehouse = buildServer(config);
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gatehouse?.app.close();
    await new Promise((resolve) => callback?.server.close(resolve));
  });

  /** An authorization request of the code flow with PKCE S256, state and nonce. */
  function authorization(extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'browser-app',
      redirect_uri: `${callback.origin}/callback`,
      scope: 'openid profile email',
      state,
      nonce: randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    });
    return { url: `${issuer}/authorize?${query}`, verifier, state };
  }

  async function exchange(code: string, verifier: string) {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuthorization('browser-app', CLIENT_SECRET),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${callback.origin}/callback`,
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  /** Signs in and consents in a fresh browser context; the texts to expect depend on the language. */
  async function signIn(
    language: { lang: string; signIn: string; allow: string; heading: string },
    extra: Record<string, string> = {},
  ) {
    const context = await browser.newContext();
    // A page that never comes should fail the test well before vitest's own timeout.
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      const request = authorization(extra);
      await page.goto(request.url);

      expect(await page.locator('html').getAttribute('lang')).toBe(language.lang);
      await page.locator('input[name=username]').fill('alice');
      await page.locator('input[name=password]').fill(PASSWORD);
      const submit = page.locator('form button[type=submit]');
      expect(await submit.count()).toBe(1);
      expect(await submit.textContent()).toBe(language.signIn);
      await submit.click();

      // The consent page, in the same language.
      const allow = page.locator('button[name=decision][value=allow]');
      await allow.waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe(language.lang);
      expect(await page.locator('h1').textContent()).toBe(language.heading);
      expect(await page.locator('li code').allTextContents()).toEqual([
        'openid',
        'profile',
        'email',
      ]);
      expect(await allow.textContent()).toBe(language.allow);
      await allow.click();

      await page.waitForURL(`${callback.origin}/callback?**`);
      expect(await page.locator('body').textContent()).toBe('callback reached');
      const params = new URL(page.url()).searchParams;
      expect(params.get('state')).toBe(request.state);
      expect(params.get('iss')).toBe(issuer);
      const code = params.get('code');
      expect(code).toEqual(expect.any(String));
      const tokens = await exchange(code as string, request.verifier);
      expect(tokens).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });

      // The session cookie holds: a prompt=none request now comes back at once with a code.
      const silent = authorization({ prompt: 'none' });
      await page.goto(silent.url);
      await page.waitForURL(`${callback.origin}/callback?**`);
      const silentParams = new URL(page.url()).searchParams;
      expect(silentParams.get('error')).toBeNull();
      expect(silentParams.get('code')).toEqual(expect.any(String));
      expect(silentParams.get('state')).toBe(silent.state);
    } finally {
      await context.close();
    }
  }

  it('signs in, consents and lands on the client with a code that redeems', async () => {
    await signIn({
      lang: 'en',
      signIn: 'Sign in',
      allow: 'Allow',
      heading: 'Browser test app asks for access to your account',
    });
  }, 60_000);

  it('signs in with JavaScript off, and form_post hands the code over through its visible button', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      // prompt=consent: alice's consent to this client may be remembered from another test.
      const request = authorization({ response_mode: 'form_post', prompt: 'consent' });
      await page.goto(request.url);
      await page.locator('input[name=username]').fill('alice');
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.locator('form button[type=submit]').click();
      await page.locator('button[name=decision][value=allow]').click();

      // No script ran the form: the page waits with its button, which posts to the client.
      const button = page.getByRole('button', { name: 'Continue' });
      await button.waitFor();
      expect(callback.posted).toEqual([]);
      await button.click();
      await page.waitForURL(`${callback.origin}/callback`);
      expect(await page.locator('body').textContent()).toBe('callback reached');
      const form = new URLSearchParams(callback.posted.at(-1));
      expect(form.get('state')).toBe(request.state);
      expect(form.get('iss')).toBe(issuer);
      const tokens = await exchange(form.get('code') as string, request.verifier);
      expect(tokens).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('does the same in French with ui_locales=fr', async () => {
    // prompt=consent: alice's consent to this client may be remembered from the test above.
    await signIn(
      {
        lang: 'fr',
        signIn: 'Se connecter',
        allow: 'Autoriser',
        heading: 'Browser test app demande l’accès à votre compte',
      },
      { ui_locales: 'fr', prompt: 'consent' },
    );
  }, 60_000);
});
