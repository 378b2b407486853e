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
import { ALICE_CLAIMS, type InteropProvider, PROVIDER_KINDS } from './support/providers.js';

/**
 * openid-client v6 and its Passport strategy, as docs/relying-parties/openid-client.md sets them
 * up, signing alice in through Chromium: code flow with PKCE, userinfo, and RP-initiated logout.
 */

const PAGE = docPage('openid-client');

describeInChromium('openid-client', (browser) => {
  describe.each(PROVIDER_KINDS)('against $name', (kind) => {
    let provider: InteropProvider;
    let plain: DocumentedRelyingParty;
    let withPassport: DocumentedRelyingParty;
    const apps: RunningApp[] = [];

    beforeAll(async () => {
      plain = await documentedClient(PAGE);
      const passportParty = await documentedClient(PAGE);
      // The page registers one client; the Passport app is a second relying party beside it.
      withPassport = {
        ...passportParty,
        client: {
          ...passportParty.client,
          client_id: `${passportParty.client.client_id}-passport`,
        },
      };
      provider = await kind.start([plain.client, withPassport.client]);
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()));
      await provider?.close();
    });

    async function profileAfterSignIn(app: RunningApp) {
      const context = await browser().newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      await page.goto(`${app.origin}/profile`);
      await signInAtProvider(page, (url) => url.href === `${app.origin}/profile`);
      return {
        context,
        page,
        profile: JSON.parse((await page.locator('body').textContent()) ?? ''),
      };
    }

    it('signs alice in with the code flow and PKCE, reads userinfo, and signs her out', async () => {
      const app = await startDocumentedApp(PAGE, 0, { ...plain, issuer: provider.issuer });
      apps.push(app);
      const { context, page, profile } = await profileAfterSignIn(app);
      expect(profile).toMatchObject({ sub: 'alice', ...ALICE_CLAIMS });

      // RP-initiated logout ends the provider's session and comes back to the app.
      await page.goto(`${app.origin}/logout`);
      await page.waitForURL(`${app.origin}/`);
      expect(await page.locator('body').textContent()).toBe('signed out');
      // Signed out at the provider too: the next sign-in asks for the password again.
      await page.goto(`${app.origin}/profile`);
      await page.locator('input[name=password]').waitFor();
      await context.close();
    }, 60_000);

    it('signs alice in through the openid-client/passport strategy', async () => {
      const app = await startDocumentedApp(PAGE, 1, { ...withPassport, issuer: provider.issuer });
      apps.push(app);
      const { context, profile } = await profileAfterSignIn(app);
      expect(profile).toMatchObject({ sub: 'alice', ...ALICE_CLAIMS });
      await context.close();
    }, 60_000);
  });
});
