import { MemoryStore } from '@gatehouse-oidc/core';
import { type FakeClock, fakeClock } from '@gatehouse-oidc/core/testing';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validConfig, withChanges } from '../server/support.js';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';

/**
 * Instances of the standalone server sharing one store (memory, PostgreSQL, Redis), on one fake
 * clock: their signing keys after the store lost them, and on a rotation schedule.
 */

/** Instances that share one store and one clock, as `cluster(clock)` starts them. */
interface Backend {
  name: string;
  cluster(clock: FakeClock): (realm?: Record<string, unknown>) => Server;
}

const memory: Backend = {
  name: 'memory',
  cluster(clock) {
    const store = new MemoryStore({ now: clock.now });
    return (realm) =>
      buildServer(serverConfig({ store: 'memory' }, realm), { now: clock.now, store });
  },
};

function onService(service: StoreUnderTest): Backend {
  return {
    name: service.name,
    cluster: (clock) => (realm) =>
      buildServer(serverConfig(service.settings(), realm), { now: clock.now, schemaReady: true }),
  };
}

function serverConfig(store: Record<string, unknown>, realm: Record<string, unknown> = {}) {
  const changes = Object.fromEntries(
    Object.entries(realm).map(([key, value]) => [`realms.0.${key}`, value]),
  );
  return parseServerConfig(withChanges(validConfig(), { ...store, ...changes }));
}

const started: Server[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.app.close()));
});

/** A JWT access token of `service` for the API, which `api` may introspect. */
async function machineToken(server: Server): Promise<string> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: FORM_HEADERS,
    payload: form({
      grant_type: 'client_credentials',
      client_id: 'service',
      client_secret: SECRETS.post,
      resource: 'https://api.example.com',
    }),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().access_token;
}

async function active(server: Server, token: string): Promise<boolean> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/oauth/demo/introspect',
    headers: { ...FORM_HEADERS, authorization: basicAuthorization('api', SECRETS.api) },
    payload: form({ token }),
  });
  return response.json().active === true;
}

async function jwks(server: Server): Promise<{ kid: string; alg: string }[]> {
  return (await server.app.inject({ url: '/oauth/demo/jwks' })).json().keys;
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

/** The kids of the realm's ES256 keys (its signing_alg) in its JWKS. */
async function signingKids(server: Server): Promise<string[]> {
  return (await jwks(server)).filter((key) => key.alg === 'ES256').map((key) => key.kid);
}

const DAY = 86_400;
/** The test realm's access tokens (the default lifetime). */
const ACCESS_TOKEN_TTL = 600;
/** How long a retired key stays published: the longest lifetime (ID tokens, 3600 s) plus 60 s. */
const RETENTION = 3600 + 60;

/** Deletes the realm's key records, as a Redis restart without persistence or a lossy failover. */
async function loseKeys(server: Server) {
  for (let position = 1; await server.store.delete('signing_key', `demo/${position}`); position++);
}

const services = await storesUnderTest('keys');

describe.each([
  { name: memory.name, backend: memory as Backend | undefined, service: undefined },
  ...services.map(({ name, store }) => ({
    name,
    backend: store && onService(store),
    service: store,
  })),
])('instances sharing one $name store', ({ backend, service }) => {
  describe.skipIf(!backend)('signing keys', () => {
    beforeAll(() => service?.migrate());
    afterAll(() => service?.cleanUp());

    /** Starts instances on `clock` sharing the store; closed after the test. */
    function cluster(clock: FakeClock) {
      const startOn = (backend as Backend).cluster(clock);
      return (realm?: Record<string, unknown>) => {
        const server = startOn(realm);
        started.push(server);
        return server;
      };
    }

    it('agree on one key within 60 s after the store lost theirs, and verify each other’s tokens again', async () => {
      const clock = fakeClock();
      const start = cluster(clock);
      const [a, b] = [start(), start()];
      const before = await machineToken(a);
      expect(await active(b, before)).toBe(true);
      expect(kidOf(await machineToken(b))).toBe(kidOf(before));

      await loseKeys(a);
      const c = start();
      const made = kidOf(await machineToken(c));
      expect(made).not.toBe(kidOf(before));

      clock.advance(60);
      const published = await Promise.all([a, b, c].map(jwks));
      for (const keys of published) expect(keys).toEqual(published[0]);
      expect(await signingKids(a)).toEqual([made]);
      for (const signer of [a, b, c]) {
        const token = await machineToken(signer);
        expect(kidOf(token)).toBe(made);
        for (const verifier of [a, b, c]) expect(await active(verifier, token)).toBe(true);
      }
      // What the lost key signed can no longer be verified, by any instance.
      for (const verifier of [a, b, c]) expect(await active(verifier, before)).toBe(false);
    });

    it('rotate once per key_rotation_seconds in all, and publish the retired key until its tokens expired', async () => {
      const clock = fakeClock();
      const start = cluster(clock);
      const [a, b] = [start({ key_rotation_seconds: DAY }), start({ key_rotation_seconds: DAY })];
      const first = kidOf(await machineToken(a));

      clock.advance(DAY - ACCESS_TOKEN_TTL / 2);
      const old = await machineToken(b);
      expect(kidOf(old)).toBe(first);
      clock.advance(ACCESS_TOKEN_TTL / 2);
      const rotated = await Promise.all([a, b, a, b].map(machineToken));
      const second = kidOf(rotated[0] as string);
      expect(second).not.toBe(first);
      for (const token of rotated) expect(kidOf(token)).toBe(second);
      for (const verifier of [a, b]) {
        expect(await signingKids(verifier)).toEqual([first, second]);
        expect(await active(verifier, old)).toBe(true);
      }

      clock.advance(RETENTION - 1);
      for (const verifier of [a, b]) expect(await signingKids(verifier)).toEqual([first, second]);
      clock.advance(1);
      for (const verifier of [a, b]) expect(await signingKids(verifier)).toEqual([second]);
    });
  });
});
