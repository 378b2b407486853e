import type { AddressInfo } from 'node:net';
import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validConfig, withChanges } from '../server/support.js';
import {
  aliceSignsIn,
  codeExchange,
  refreshRequest,
  WEB_TOKEN_HEADERS,
} from '../server/web-sign-in.js';
import { FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * The standalone server on a real PostgreSQL or Redis reached through a TCP proxy, which the test
 * freezes (the store hangs) or makes refuse connections (the store is down), then restores.
 * While the store is away every request that needs it answers 503 `temporarily_unavailable`
 * within a bound, `/healthz` answers 503, no token goes out without its record, and nothing the
 * failed requests touched is used up; once the store is back the same server recovers by itself.
 */

const BASE_URL = 'http://127.0.0.1:3000';
/** The store's own bound on each call; requests must answer well within OUTAGE_ANSWER_MS. */
const STORE_TIMEOUT_MS = 500;
const OUTAGE_ANSWER_MS = 3_000;
const RECOVERY_MS = 10_000;
/** In the store URL: it must never reach a response, a report or an error. PostgreSQL trusts us. */
const PASSWORD = 'never-shown-0123456789';

const CLIENT_CREDENTIALS = form({
  grant_type: 'client_credentials',
  client_id: 'service',
  client_secret: SECRETS.post,
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  ms: number;
}

describe.each(await storesUnderTest('outage'))('when $name is unreachable', ({ store }) => {
  describe.skipIf(!store)('the standalone server', () => {
    const backend = store as StoreUnderTest;
    let proxy: TcpProxy;
    let server: Server;
    let origin: string;
    const reports: unknown[] = [];

    beforeAll(async () => {
      await backend.migrate();
      proxy = await startTcpProxy(backend.address);
      const settings = backend.settings({ port: proxy.port, timeoutMs: STORE_TIMEOUT_MS });
      const url = new URL(settings.store);
      // Redis would refuse a password it does not expect.
      if (url.protocol.startsWith('postgres')) url.password = PASSWORD;
      const config = parseServerConfig(
        withChanges(validConfig(), {
          base_url: BASE_URL,
          ...settings,
          store: url.href,
          'realms.0.clients.2.grant_types': ['authorization_code', 'refresh_token'],
          'realms.0.clients.2.skip_consent': true,
        }),
      );
      server = buildServer(config, { report: (error) => reports.push(error) });
      await server.app.listen({ port: 0, host: '127.0.0.1' });
      origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await server?.app.close();
      await proxy?.close();
      await backend.cleanUp();
    });

    async function post(path: string, body: string, headers: Record<string, string>) {
      const started = performance.now();
      const response = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
      const answer: Answer = {
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
        headers: response.headers,
        ms: performance.now() - started,
      };
      return answer;
    }

    const machineToken = () => post('/oauth/demo/token', CLIENT_CREDENTIALS, FORM_HEADERS);
    const redeem = (code: string) =>
      post('/oauth/demo/token', codeExchange(code), WEB_TOKEN_HEADERS);
    const refresh = (token: string) =>
      post('/oauth/demo/token', refreshRequest(token), WEB_TOKEN_HEADERS);

    async function health() {
      const started = performance.now();
      const response = await fetch(`${origin}/healthz`);
      return {
        status: response.status,
        body: await response.json(),
        ms: performance.now() - started,
      };
    }

    /** A token handed out has its record in the store: it can be revoked and introspected. */
    async function expectRecorded(answer: Answer) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { jti } = decodeJwt(String(answer.body.access_token));
      expect(await server.store.get('access_token', `demo/${jti}`)).toMatchObject({ jti });
    }

    it.each([
      ['hangs', (p: TcpProxy) => p.freeze()],
      ['is down', (p: TcpProxy) => p.refuse()],
    ])(
      'while the store %s: bounded 503s, nothing used up, then recovery without a restart',
      async (_mode, cut) => {
        // Before: a code and a refresh token the client holds, and a signing key in use.
        await expectRecorded(await machineToken());
        const code = await aliceSignsIn(server.app, BASE_URL);
        const first = await redeem(await aliceSignsIn(server.app, BASE_URL));
        await expectRecorded(first);
        const refreshToken = String(first.body.refresh_token);
        expect((await health()).status).toBe(200);
        reports.length = 0;

        cut(proxy);
        const during = await Promise.all([
          machineToken(),
          machineToken(),
          machineToken(),
          redeem(code),
          refresh(refreshToken),
        ]);
        for (const answer of during) {
          expect(answer.status).toBe(503);
          expect(answer.body).toEqual({
            error: 'temporarily_unavailable',
            error_description: 'the service is temporarily unavailable',
          });
          expect(answer.headers.get('cache-control')).toBe('no-store');
          expect(answer.headers.get('retry-after')).toBe('1');
          expect(answer.ms).toBeLessThan(OUTAGE_ANSWER_MS);
        }
        const down = await health();
        expect([down.status, down.body]).toEqual([503, { status: 'unavailable' }]);
        expect(down.ms).toBeLessThan(OUTAGE_ANSWER_MS);

        proxy.restore();
        const deadline = performance.now() + RECOVERY_MS;
        while ((await health()).status !== 200) {
          expect(performance.now(), 'the server did not recover').toBeLessThan(deadline);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // The same server, no restart: every request works again, and the code and the refresh
        // token the failed requests carried were not used up by them.
        await expectRecorded(await machineToken());
        await expectRecorded(await redeem(code));
        await expectRecorded(await refresh(refreshToken));

        // Every failure was reported as the store's, and no report quotes the password.
        expect(reports.length).toBeGreaterThanOrEqual(during.length);
        for (const report of reports) {
          expect(report).toBeInstanceOf(StoreUnavailableError);
          expect(String((report as Error).message)).not.toContain(PASSWORD);
          expect(String((report as Error).stack)).not.toContain(PASSWORD);
        }
      },
    );
  });
});
