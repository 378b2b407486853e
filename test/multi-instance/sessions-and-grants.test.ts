import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectBrowser } from '../server/pages-support.js';
import { ADMIN_TOKEN, configDir, killAllCli } from '../server/support.js';
import {
  aliceSignsInWith,
  codeExchange,
  refreshRequest,
  silentAuthorization,
  WEB_TOKEN_HEADERS,
} from '../server/web-sign-in.js';
import { form } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { answer, balancedInjector, type Instance, startPairOn } from './instances.js';

/**
 * The admin API's sessions and grants (issue 12) and refresh rotation's grace with two
 * `gatehouse serve` processes on one shared store, first PostgreSQL, then Redis: what one
 * instance ends or revokes no longer works at the other, and concurrent refreshes at both
 * within the grace agree on one successor.
 */

const BASE_URL = 'https://idp.sessions-instances.test';
const GRACE_SECONDS = 2;

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

const asWeb = (instance: Instance, endpoint: string, body: string) =>
  answer(
    instance.fetch(`/oauth/demo/${endpoint}`, { method: 'POST', headers: WEB_TOKEN_HEADERS, body }),
  );

const admin = (instance: Instance, method: 'GET' | 'DELETE', path: string) =>
  answer(
    instance.fetch(`/admin/realms/demo/${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }),
  );

describe.each(await storesUnderTest('sessions'))('two instances sharing one $name', ({ store }) => {
  describe.skipIf(!store)('behind one issuer', () => {
    const backend = store as StoreUnderTest;
    let a: Instance;
    let b: Instance;

    /** A browser whose requests go to whichever instance `at` names at the time. */
    function browserAt(first: Instance) {
      let current = first;
      const { injector } = balancedInjector(() => current);
      const browser = new InjectBrowser(injector, BASE_URL);
      return {
        browser,
        at(instance: Instance) {
          current = instance;
          return browser;
        },
      };
    }

    /** Alice signs in at `signIn`, and `redeem` exchanges web's code: the browser and tokens. */
    async function signedIn(signIn: Instance, redeem: Instance) {
      const user = browserAt(signIn);
      const code = await aliceSignsInWith(user.browser, BASE_URL);
      const tokens = await asWeb(redeem, 'token', codeExchange(code));
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      return {
        ...user,
        accessToken: String(tokens.body.access_token),
        refreshToken: String(tokens.body.refresh_token),
      };
    }

    const refreshAt = (instance: Instance, refreshToken: string) =>
      asWeb(instance, 'token', refreshRequest(refreshToken));

    beforeAll(async () => {
      [a, b] = await startPairOn(dir, backend, BASE_URL, {
        // Shared, so a form one instance rendered is accepted by the other.
        cookie_secret: 'sessions-instances-cookie-secret-0123456789',
        'realms.0.refresh_token_rotation_grace': GRACE_SECONDS,
        'realms.0.clients.2.grant_types': ['authorization_code', 'refresh_token'],
      });
    }, 60_000);

    afterAll(async () => {
      killAllCli();
      await backend.cleanUp();
    });

    it('log alice out everywhere through A: neither browser signs in at B or A, no refresh works', async () => {
      const laptop = await signedIn(a, b);
      const phone = await signedIn(b, a);
      expect(await silentAuthorization(laptop.at(b), BASE_URL)).toBe('code');
      expect(await silentAuthorization(phone.at(a), BASE_URL)).toBe('code');
      const listed = await admin(b, 'GET', 'users/alice/sessions');
      expect(listed.status).toBe(200);
      expect(listed.body.sessions).toHaveLength(2);

      expect((await admin(a, 'DELETE', 'users/alice/sessions')).status).toBe(204);

      expect(await silentAuthorization(laptop.at(b), BASE_URL)).toBe('login_required');
      expect(await silentAuthorization(phone.at(a), BASE_URL)).toBe('login_required');
      expect(await silentAuthorization(laptop.at(a), BASE_URL)).toBe('login_required');
      for (const [instance, { refreshToken }] of [
        [b, laptop],
        [a, phone],
      ] as const) {
        const refused = await refreshAt(instance, refreshToken);
        expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
      }
      expect((await admin(b, 'GET', 'users/alice/sessions')).body).toEqual({ sessions: [] });
    });

    it('end one session through B: that browser is signed out at A, the other is not', async () => {
      const laptop = await signedIn(a, a);
      const phone = await signedIn(a, a);
      const sessions = (await admin(a, 'GET', 'users/alice/sessions')).body.sessions as {
        sid: string;
      }[];
      expect(sessions).toHaveLength(2);
      const [newest] = sessions as [{ sid: string }];
      expect((await admin(b, 'DELETE', `sessions/${newest.sid}`)).status).toBe(204);
      const outcomes = await Promise.all(
        [laptop, phone].map(async (user) => [
          await silentAuthorization(user.at(a), BASE_URL),
          (await refreshAt(a, user.refreshToken)).status,
        ]),
      );
      expect(outcomes.sort()).toEqual([
        ['code', 200],
        ['login_required', 400],
      ]);
      expect((await admin(a, 'DELETE', `sessions/${newest.sid}`)).status).toBe(404);
      await admin(a, 'DELETE', 'users/alice/sessions');
    });

    it('revoke web’s grant through B: introspection at A answers inactive, userinfo 401', async () => {
      const { accessToken, refreshToken } = await signedIn(a, a);
      const introspect = () => asWeb(a, 'introspect', form({ token: accessToken }));
      const userinfo = () =>
        answer(
          a.fetch('/oauth/demo/userinfo', { headers: { authorization: `Bearer ${accessToken}` } }),
        );
      expect((await introspect()).body.active).toBe(true);
      expect((await userinfo()).status).toBe(200);

      expect((await admin(b, 'DELETE', 'users/alice/grants/web')).status).toBe(204);

      expect((await introspect()).body.active).toBe(false);
      expect((await userinfo()).status).toBe(401);
      expect((await refreshAt(a, refreshToken)).body.error).toBe('invalid_grant');
      expect((await admin(a, 'GET', 'users/alice/grants')).body).toEqual({ grants: [] });
      await admin(a, 'DELETE', 'users/alice/sessions');
    });

    it(`give concurrent refreshes of one token at A and B within the grace one successor, and revoke on reuse after it`, async () => {
      const { refreshToken } = await signedIn(a, b);
      const answers = await Promise.all(
        [a, b, a, b].map((instance) => refreshAt(instance, refreshToken)),
      );
      for (const each of answers) expect(each.status, JSON.stringify(each.body)).toBe(200);
      const successors = new Set(answers.map((each) => each.body.refresh_token));
      expect(successors.size).toBe(1);
      const accessTokens = new Set(answers.map((each) => each.body.access_token));
      expect(accessTokens.size).toBe(4);

      await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 200));
      const reuse = await refreshAt(b, refreshToken);
      expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
      // The reuse revoked the grant: the successor every answer carried no longer works either.
      const [successor] = [...successors] as [string];
      expect((await refreshAt(a, successor)).body.error).toBe('invalid_grant');
      for (const token of accessTokens) {
        const introspection = await asWeb(b, 'introspect', form({ token: String(token) }));
        expect(introspection.body.active).toBe(false);
      }
    });
  });
});
