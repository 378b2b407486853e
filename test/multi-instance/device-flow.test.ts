import type { Server } from '@gatehouse-oidc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenOf, InjectBrowser } from '../server/pages-support.js';
import { FORM_HEADERS, form } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { inProcessPairOn } from './instances.js';

/**
 * The device authorization grant across two standalone servers on one shared store, on
 * PostgreSQL and on Redis: a device asks at one instance, the user approves through the pages of
 * the other, and of polls racing at both instances exactly one gets the tokens.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

const instances = (store: StoreUnderTest) =>
  inProcessPairOn(
    store,
    BASE_URL,
    { device_poll_interval: 1 },
    {
      client_id: 'tv',
      token_endpoint_auth_method: 'none',
      grant_types: [DEVICE],
      scope: 'openid profile',
    },
  );

const post = (at: Server, path: string, fields: Record<string, string>) =>
  at.app.inject({ method: 'POST', url: path, headers: FORM_HEADERS, payload: form(fields) });

/** The user, at the pages of `at`: the code, the login, the consent; the page it ends on. */
async function approve(at: Server, userCode: string) {
  const browser = new InjectBrowser(at.app, BASE_URL);
  const page = await browser.get(`/oauth/demo/device?user_code=${encodeURIComponent(userCode)}`);
  const login = await browser.follow(
    await browser.post(browser.lastUrl, {
      user_code: userCode,
      csrf_token: csrfTokenOf(page.body),
    }),
  );
  const consent = await browser.follow(
    await browser.post(browser.lastUrl, {
      username: 'alice',
      password: 'alice-password',
      csrf_token: csrfTokenOf(login.body),
    }),
  );
  return browser.follow(
    await browser.post(browser.lastUrl, {
      decision: 'allow',
      csrf_token: csrfTokenOf(consent.body),
    }),
  );
}

describe.each(await storesUnderTest('device_flow'))('on $name', ({ store }) => {
  describe.skipIf(!store)('two instances, one store', () => {
    let a: Server;
    let b: Server;
    beforeAll(async () => {
      [a, b] = await instances(store as StoreUnderTest);
    }, 60_000);
    afterAll(async () => {
      await a?.app.close();
      await b?.app.close();
      await store?.cleanUp();
    });

    it('asked at one instance, approved at the other, redeemed once by polls racing at both', async () => {
      const started = (
        await post(a, '/oauth/demo/device/auth', { client_id: 'tv', scope: 'openid profile' })
      ).json();
      const poll = (at: Server) =>
        post(at, '/oauth/demo/token', {
          grant_type: DEVICE,
          device_code: started.device_code,
          client_id: 'tv',
        });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await poll(b)).json().error).toBe('authorization_pending');

      const end = await approve(b, started.user_code);
      expect(end.statusCode, end.body).toBe(200);
      expect(end.body).toContain('id="device-approved"');

      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => poll(i % 2 ? a : b)));
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(400)]);
      for (const answer of answers.filter((each) => each.statusCode === 400)) {
        expect(answer.json().error).toBe('invalid_grant');
      }
    });
  });
});
