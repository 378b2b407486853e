import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildServer, createStore, parseServerConfig } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeOnSignals } from '../../packages/server/src/cli/shutdown.js';
import { validConfig, withChanges } from '../server/support.js';
import { form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';

/**
 * SIGTERM with a request in flight on a server whose store is a real PostgreSQL or Redis: the
 * request finishes with its token stored, and only then is the store closed.
 */

const TOKEN_FORM = form({
  grant_type: 'client_credentials',
  client_id: 'service',
  client_secret: SECRETS.post,
});

let removeHandlers = () => {};
afterEach(() => removeHandlers());

describe.each(await storesUnderTest('shutdown'))('graceful shutdown on $name', ({ store }) => {
  describe.skipIf(!store)('the standalone server', () => {
    const backend = store as StoreUnderTest;
    beforeAll(() => backend.migrate());
    afterAll(() => backend.cleanUp());

    it('finishes the request in flight, then closes the store and exits 0', async () => {
      const config = parseServerConfig(withChanges(validConfig(), backend.settings()));
      const { app, store } = buildServer(config);
      // The server has the request (its headers) once this resolves: a busy machine may take a
      // while to hand it over.
      const received = new Promise<void>((resolve) =>
        app.addHook('onRequest', async () => resolve()),
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const logged: string[] = [];
      const exited = new Promise<number>((exit) => {
        removeHandlers = closeOnSignals(app, { graceMs: 5_000, log: (l) => logged.push(l), exit });
      });

      // Half the body now: the server holds the request and waits for the rest.
      const inFlight = request({
        port,
        host: '127.0.0.1',
        path: '/oauth/demo/token',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': TOKEN_FORM.length,
        },
      });
      const answered = new Promise<{ status?: number; body: string }>((resolve, reject) => {
        inFlight.on('error', reject).on('response', (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode, body }));
        });
      });
      inFlight.write(TOKEN_FORM.slice(0, 20));
      await received;

      process.emit('SIGTERM', 'SIGTERM');
      expect(logged).toEqual(['SIGTERM received: finishing in-flight requests, then stopping']);
      // Still open for the request in flight: the store answers it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(store.ping()).resolves.toBeUndefined();

      inFlight.end(TOKEN_FORM.slice(20));
      const { status, body } = await answered;
      expect(status, body).toBe(200);
      expect(await exited).toBe(0);
      expect(logged).toHaveLength(1);

      // The store is closed once the server is done...
      await expect(store.ping()).rejects.toThrow(/store is closed/);
      // ...and the token's record was written before that.
      const { jti } = decodeJwt(JSON.parse(body).access_token);
      const reader = createStore(config);
      try {
        expect(await reader.get('access_token', `demo/${jti}`)).toMatchObject({
          jti,
          client_id: 'service',
        });
      } finally {
        await reader.close();
      }
    });
  });
});
