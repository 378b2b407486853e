import { afterEach, describe, expect, it } from 'vitest';
import { describeInChromium } from '../support/chromium.js';
import { signInAtProvider } from './support/chromium-user.js';
import {
  docPage,
  documentedClient,
  type RunningApp,
  startDocumentedApp,
} from './support/documented-app.js';
import { ALICE_CLAIMS, type InteropProvider, PROVIDER_KINDS } from './support/providers.js';

/**
 * express-openid-connect as docs/relying-parties/express-openid-connect.md sets it up: its default
 * configuration (an RS256 ID token posted back with response_mode=form_post, the page submitting
 * itself in Chromium) and its code flow (the profile in `req.oidc.user` from the ID token of a
 * client with claims_in_id_token), signing alice in and out again.
 */

const PAGE = docPage('express-openid-connect');

const CONFIGURATIONS = [
  { name: 'its default configuration (id_token, form_post)', index: 0 },
  { name: 'the code flow and claims_in_id_token', index: 1 },
];

describeInChromium('express-openid-connect', (browser) => {
  describe.each(PROVIDER_KINDS)('against $name', (kind) => {
    let provider: InteropProvider | undefined;
    let app: RunningApp | undefined;
    afterEach(async () => {
      await app?.stop();
      await provider?.close();
      app = undefined;
      provider = undefined;
    });

    it.each(CONFIGURATIONS)(
      'signs alice in and out with $name',
      async ({ index }) => {
        const party = await documentedClient(PAGE, index);
        provider = await kind.start([party.client]);
        app = await startDocumentedApp(PAGE, index, { ...party, issuer: provider.issuer });
        const { origin } = app;
        const context = await browser().newContext();
        context.setDefaultTimeout(10_000);
        const page = await context.newPage();
        await page.goto(`${origin}/profile`);
        await signInAtProvider(page, (url) => url.href === `${origin}/profile`);
        const user = JSON.parse((await page.locator('body').textContent()) ?? '');
        expect(user).toMatchObject({ sub: 'alice', ...ALICE_CLAIMS });

        await page.goto(`${origin}/logout`);
        await page.waitForURL((url) => url.origin === origin && url.pathname === '/');
        expect(await page.locator('body').textContent()).toBe('signed out');
        // The provider's session ended too: signing in again asks for the password.
        await page.goto(`${origin}/profile`);
        await page.locator('input[name=password]').waitFor();
        await context.close();
      },
      60_000,
    );
  });
});
