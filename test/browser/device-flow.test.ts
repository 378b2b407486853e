import { randomBytes } from 'node:crypto';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInChromium } from '../support/chromium.js';
import { freePort } from '../support/ports.js';

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const PASSWORD = 'alice-device-browser-password';

/**
 * The device authorization grant with a real browser at the pages: openid-client v6 is the
 * device and polls the standalone server, while Chromium opens `verification_uri_complete`,
 * confirms the code filled in, signs in, checks the code on the consent page and allows.
 */
describeInChromium('device sign-in in a real browser (Chromium)', (browser) => {
  let gatehouse: Server;
  let issuer: string;

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}/oauth/demo`;
    const config = parseServerConfig({
      base_url: `http://127.0.0.1:${port}`,
      cookie_secret: randomBytes(32).toString('base64url'),
      realms: [
        {
          name: 'demo',
          scopes: ['openid', 'profile'],
          device_poll_interval: 1,
          clients: [
            {
              client_id: 'tv',
              client_name: 'Living Room TV',
              token_endpoint_auth_method: 'none',
              grant_types: [DEVICE],
              scope: 'openid profile',
            },
          ],
          users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: {} }],
        },
      ],
    });
    gatehouse = buildServer(config);
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
  }, 60_000);

  afterAll(() => gatehouse?.app.close());

  it('the code filled in from verification_uri_complete, login, consent, and the device continues', async () => {
    const tv = await oidc.discovery(new URL(issuer), 'tv', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid profile' });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);

    const context = await browser().newContext();
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await page.goto(started.verification_uri_complete ?? '');
      const code = page.locator('form input[name=user_code]');
      expect(await code.inputValue()).toBe(started.user_code);
      await page.locator('form button[type=submit]').click();

      await page.locator('input[name=password]').waitFor();
      await page.locator('input[name=username]').fill('alice');
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.locator('form button[type=submit]').click();

      const allow = page.locator('button[name=decision][value=allow]');
      await allow.waitFor();
      expect(await page.locator('#device-code').textContent()).toContain(started.user_code);
      await allow.click();

      await page.locator('#device-approved').waitFor();
      expect(new URL(page.url()).searchParams.get('result')).toBe('approved');
    } finally {
      await context.close();
    }

    const tokens = await polling;
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice', aud: 'tv' });
  });
});
