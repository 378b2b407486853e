import type { Page } from 'playwright-core';
import { ALICE } from './providers.js';

/**
 * Alice at the provider's pages in Chromium: she signs in when the login page comes and allows
 * when the consent page comes, then her browser goes on wherever the provider sends it (the
 * form_post page submits itself). The standalone server's pages and the example app's share the
 * field names, so one routine serves both. Resolves once the browser is at `destination`.
 */
export async function signInAtProvider(
  page: Page,
  destination: (url: URL) => boolean,
): Promise<void> {
  const login = page.locator('input[name=password]');
  const allow = page.locator('button[name=decision][value=allow]');
  const arrived = () => destination(new URL(page.url()));
  for (let step = 0; step < 4 && !arrived(); step++) {
    await Promise.race([
      login.waitFor(),
      allow.waitFor(),
      page.waitForURL((url) => destination(url), { waitUntil: 'load' }),
    ]);
    if (arrived()) break;
    if (await login.isVisible()) {
      await page.locator('input[name=username]').fill(ALICE.username);
      await login.fill(ALICE.password);
      await page.locator('form button:not([name])').first().click();
      await login.waitFor({ state: 'detached' });
    } else if (await allow.isVisible()) {
      await allow.click();
      await allow.waitFor({ state: 'detached' });
    }
  }
  await page.waitForURL((url) => destination(url), { waitUntil: 'load' });
}
