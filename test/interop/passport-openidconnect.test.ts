import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInChromium } from '../support/chromium.js';
import { signInAtProvider } from './support/chromium-user.js';
import {
  type DocumentedRelyingParty,
  docPage,
  documentedClient,
  type RunningApp,
  startDocumentedApp,
} from './support/documented-app.js';
import { type InteropProvider, PROVIDER_KINDS } from './support/providers.js';

/**
 * passport-openidconnect as docs/relying-parties/passport-openidconnect.md sets it up: the code
 * flow with client_secret_post, the ID token and userinfo making Passport's profile.
 */

const PAGE = docPage('passport-openidconnect');

describeInChromium('passport-openidconnect', (browser) => {
  describe.each(PROVIDER_KINDS)('against $name', (kind) => {
    let provider: InteropProvider;
    let party: DocumentedRelyingParty;
    let app: RunningApp | undefined;

    beforeAll(async () => {
      party = await documentedClient(PAGE);
      provider = await kind.start([party.client]);
    });
    afterAll(async () => {
      await app?.stop();
      await provider?.close();
    });

    it('signs alice in; her profile comes from the ID token and userinfo', async () => {
      app = await startDocumentedApp(PAGE, 0, { ...party, issuer: provider.issuer });
      const context = await browser().newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      await page.goto(`${app.origin}/profile`);
      await signInAtProvider(page, (url) => url.href === `${app?.origin}/profile`);
      expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toEqual({
        id: 'alice',
        displayName: 'Alice Liddell',
        emails: [{ value: 'alice@example.com' }],
      });
      await context.close();
    }, 60_000);
  });
});
