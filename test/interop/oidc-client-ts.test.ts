import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeInChromium } from '../support/chromium.js';
import { signInAtProvider } from './support/chromium-user.js';
import {
  codeBlocks,
  type DocumentedRelyingParty,
  docPage,
  documentedClient,
} from './support/documented-app.js';
import { type InteropProvider, PROVIDER_KINDS } from './support/providers.js';

/**
 * oidc-client-ts in Chromium, as docs/relying-parties/oidc-client-ts.md writes the app: served
 * from its own origin (another port than the provider's, so every call to the token, userinfo and
 * revocation endpoints is a CORS request), with the library's ES module build through an import
 * map. Sign-in, silent renewal in an iframe with prompt=none, session monitoring through the
 * check_session_iframe, and sign-out that revokes the tokens.
 */

const PAGE = docPage('oidc-client-ts');
/** The page's example issuer, replaced by the provider's. */
const DOCUMENTED_AUTHORITY = 'https://id.example.com/oauth/demo';

const require = createRequire(import.meta.url);
const libraryDir = dirname(require.resolve('oidc-client-ts/package.json'));
/** jwt-decode, oidc-client-ts's one dependency, as that package resolves it. */
const jwtDecodeMain = createRequire(join(libraryDir, 'package.json')).resolve('jwt-decode');
const jwtDecodeDir = jwtDecodeMain.slice(0, jwtDecodeMain.lastIndexOf('/build/'));
const VENDOR: Record<string, string> = {
  '/vendor/oidc-client-ts.js': join(libraryDir, 'dist/esm/oidc-client-ts.js'),
  '/vendor/jwt-decode.js': join(jwtDecodeDir, 'build/esm/index.js'),
};
const IMPORT_MAP = `<script type="importmap">${JSON.stringify({
  imports: { 'oidc-client-ts': '/vendor/oidc-client-ts.js', 'jwt-decode': '/vendor/jwt-decode.js' },
})}</script>`;

/** The app's files as the page has them, served from `origin`. */
async function serveSpa(origin: string, issuer: string): Promise<Server> {
  const [index = '', silent = ''] = codeBlocks(PAGE, 'html');
  const [settings = '', app = '', silentScript = ''] = codeBlocks(PAGE, 'js');
  const withMap = (html: string) =>
    html.replace('<script type="module"', `${IMPORT_MAP}<script type="module"`);
  const files: Record<string, [string, string]> = {
    '/': ['text/html', withMap(index)],
    '/silent-renew.html': ['text/html', withMap(silent)],
    '/settings.js': ['text/javascript', settings.replace(DOCUMENTED_AUTHORITY, issuer)],
    '/app.js': ['text/javascript', app],
    '/silent-renew.js': ['text/javascript', silentScript],
  };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', origin).pathname;
    const vendor = VENDOR[path];
    const [type, body] = vendor
      ? ['text/javascript', readFileSync(vendor, 'utf8')]
      : (files[path] ?? []);
    if (!type) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8` }).end(body);
  });
  await new Promise<void>((resolve) =>
    server.listen(Number(new URL(origin).port), '127.0.0.1', resolve),
  );
  return server;
}

describeInChromium('oidc-client-ts', (browser) => {
  describe.each(PROVIDER_KINDS)('against $name', (kind) => {
    let provider: InteropProvider;
    let party: DocumentedRelyingParty;
    let spa: Server;
    beforeAll(async () => {
      party = await documentedClient(PAGE);
      provider = await kind.start([party.client]);
      spa = await serveSpa(party.origin, provider.issuer);
    });
    afterAll(async () => {
      await new Promise((resolve) => spa?.close(resolve));
      await provider?.close();
    });

    let pages: Page[] = [];
    afterEach(async () => {
      await Promise.all(pages.map((page) => page.context().close()));
      pages = [];
    });

    /** A fresh browser profile, signed in to the SPA through the provider's pages. */
    async function signedIn(): Promise<Page> {
      const context = await browser().newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      pages.push(page);
      await page.goto(`${party.origin}/`);
      await page.locator('#user', { hasText: 'nobody' }).waitFor();
      await page.locator('#sign-in').click();
      await page.waitForURL((url) => url.origin !== party.origin);
      await signInAtProvider(page, (url) => url.origin === party.origin);
      await page.locator('#user', { hasText: 'Alice Liddell' }).waitFor();
      return page;
    }

    it('signs in with the code flow and PKCE, renews silently, and hears of a sign-out elsewhere', async () => {
      const page = await signedIn();

      // The renewal is an authorization request with prompt=none in a hidden iframe.
      const silent: URL[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (
          url.href.startsWith(`${provider.issuer}/authorize`) &&
          request.frame() !== page.mainFrame()
        )
          silent.push(url);
      });
      await page.locator('#renew').click();
      await page.locator('#renewed', { hasText: 'renewed' }).waitFor();
      expect(silent.map((url) => url.searchParams.get('prompt'))).toEqual(['none']);

      // Signing out in another tab ends the session the check_session_iframe watches.
      const other = await page.context().newPage();
      await other.goto(`${provider.issuer}/logout`);
      await other.getByRole('button', { name: 'Sign out' }).click();
      await page
        .locator('#session', { hasText: 'signed out elsewhere' })
        .waitFor({ timeout: 15_000 });
    }, 60_000);

    it('signs out, revoking its tokens first', async () => {
      const page = await signedIn();
      // Where oidc-client-ts keeps the signed-in user (sessionStorage, key oidc.user:…).
      const stored = (await page.evaluate(`(() => {
        const key = Object.keys(sessionStorage).find((name) => name.startsWith('oidc.user:'));
        return JSON.parse(sessionStorage.getItem(key) ?? '{}');
      })()`)) as { access_token?: string };
      const userinfo = () =>
        fetch(`${provider.issuer}/userinfo`, {
          headers: { authorization: `Bearer ${stored.access_token}` },
        });
      expect((await userinfo()).status).toBe(200);

      // Each revocation is a CORS request the SPA's script must be allowed to read.
      const revocations: { status: number; allowOrigin: string | undefined }[] = [];
      page.on('response', (response) => {
        if (
          response.url() === `${provider.issuer}/revoke` &&
          response.request().method() === 'POST'
        )
          revocations.push({
            status: response.status(),
            allowOrigin: response.headers()['access-control-allow-origin'],
          });
      });
      await page.locator('#sign-out').click();
      await page.waitForURL(`${party.origin}/`);
      await page.locator('#user', { hasText: 'nobody' }).waitFor();
      expect((await userinfo()).status).toBe(401);
      expect(revocations.length).toBeGreaterThan(0);
      for (const revocation of revocations)
        expect(revocation).toEqual({ status: 200, allowOrigin: party.origin });
    }, 60_000);
  });
});
