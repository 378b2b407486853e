import {
  type CryptoKey,
  errors,
  exportJWK,
  generateKeyPair,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { boundedFetcher } from '../outbound/bounded-fetcher.js';
import { fetchTransport } from '../outbound/fetch-transport.js';
import { fakeClock } from '../testing/clock.js';
import { JwksFetchError } from './fetch-jwks.js';
import { DEFAULT_REMOTE_KEY_SET_OPTIONS, RemoteKeySets } from './remote-key-sets.js';

const URI = 'https://client.example.com/jwks';
const { refetchIntervalMs, maxAgeMs, firstBackoffMs, maxBackoffMs } =
  DEFAULT_REMOTE_KEY_SET_OPTIONS;

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}

async function key(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

const sign = (signer: Key, kid = signer.jwk.kid) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', ...(kid ? { kid } : {}) })
    .sign(signer.privateKey);

let real: Key;
let attacker: Key;
let rotated: Key;

beforeAll(async () => {
  [real, attacker, rotated] = await Promise.all([key('k1'), key('nope'), key('k2')]);
});

/** A jwks_uri under the test's control: what it serves, and how often it was asked. */
function keyServer() {
  const server = {
    keys: [] as JWK[],
    up: true,
    fetches: 0,
    fetch: (async () => {
      server.fetches++;
      if (!server.up) return new Response('down', { status: 503 });
      return Response.json({ keys: server.keys });
    }) as typeof fetch,
  };
  return server;
}

let clock: ReturnType<typeof fakeClock>;
let server: ReturnType<typeof keyServer>;
let reported: unknown[];
let keySets: RemoteKeySets;
const verify = (jwt: string, clientId = 'client') =>
  jwtVerify(
    jwt,
    keySets.keyFor(
      'realm',
      { kind: 'client', id: clientId },
      {
        jwksUri: URI,
        author: 'operator',
        allowPrivateNetworks: false,
      },
    ),
  );
const elapse = (ms: number) => clock.advance(ms / 1000);

beforeEach(() => {
  clock = fakeClock();
  server = keyServer();
  server.keys = [real.jwk];
  reported = [];
  keySets = new RemoteKeySets(
    clock.now,
    (error) => reported.push(error),
    {},
    boundedFetcher(fetchTransport(server.fetch)),
  );
});

describe('RemoteKeySets', () => {
  it('refuses an assertion with an unknown kid and accepts the genuine one right after', async () => {
    await expect(verify(await sign(attacker))).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    await expect(verify(await sign(real))).resolves.toBeDefined();
    expect(server.fetches).toBe(1);
    expect(reported).toEqual([]);
  });

  it('refuses an unknown algorithm or a wrong signature without remembering anything', async () => {
    const forged = new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: 'k1' });
    await expect(verify(await forged.sign(new Uint8Array(32)))).rejects.toBeInstanceOf(
      errors.JOSEError,
    );
    await expect(verify(await sign(attacker, 'k1'))).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
    await expect(verify(await sign(real))).resolves.toBeDefined();
    expect(server.fetches).toBe(1);
  });

  it('refetches for an unknown kid at most once per interval, which finds a newly published key', async () => {
    await verify(await sign(real));
    server.keys = [real.jwk, rotated.jwk];
    for (let i = 0; i < 5; i++) await expect(verify(await sign(rotated))).rejects.toThrow();
    expect(server.fetches).toBe(1);

    elapse(refetchIntervalMs);
    await expect(verify(await sign(rotated))).resolves.toBeDefined();
    expect(server.fetches).toBe(2);
    await expect(verify(await sign(attacker))).rejects.toThrow();
    expect(server.fetches).toBe(2);
  });

  it('fetches the set again once it is older than the maximum age', async () => {
    await verify(await sign(real));
    elapse(maxAgeMs - 1);
    await verify(await sign(real));
    expect(server.fetches).toBe(1);
    elapse(1);
    await verify(await sign(real));
    expect(server.fetches).toBe(2);
  });

  it('remembers a failed fetch, with a backoff that doubles, reported once per fetch', async () => {
    server.up = false;
    await expect(verify(await sign(real))).rejects.toBeInstanceOf(JwksFetchError);
    await expect(verify(await sign(real))).rejects.toBeInstanceOf(JwksFetchError);
    expect(server.fetches).toBe(1);
    expect(reported).toHaveLength(1);
    expect(String(reported[0])).toContain(
      'jwks_uri of client "client" of realm "realm": answered HTTP 503',
    );

    elapse(firstBackoffMs);
    await expect(verify(await sign(real))).rejects.toThrow();
    expect(server.fetches).toBe(2);
    elapse(firstBackoffMs);
    await expect(verify(await sign(real))).rejects.toThrow();
    expect(server.fetches).toBe(2);
    elapse(firstBackoffMs);
    server.up = true;
    await expect(verify(await sign(real))).resolves.toBeDefined();
    expect(server.fetches).toBe(3);
  });

  it('never waits longer than the longest backoff', async () => {
    server.up = false;
    for (let i = 0; i < 20; i++) {
      await verify(await sign(real)).catch(() => {});
      elapse(maxBackoffMs);
    }
    expect(server.fetches).toBe(20);
  });

  it('shares one fetch between concurrent assertions', async () => {
    const jwt = await sign(real);
    await Promise.all(Array.from({ length: 10 }, () => verify(jwt)));
    expect(server.fetches).toBe(1);
  });

  it('keeps one set per client and forgets the least recently used beyond its bound', async () => {
    keySets = new RemoteKeySets(
      clock.now,
      () => {},
      { maxEntries: 2 },
      boundedFetcher(fetchTransport(server.fetch)),
    );
    const jwt = await sign(real);
    await verify(jwt, 'a');
    await verify(jwt, 'b');
    await verify(jwt, 'a');
    await verify(jwt, 'c');
    expect(keySets.size).toBe(2);
    expect(server.fetches).toBe(3);
    await verify(jwt, 'a');
    expect(server.fetches).toBe(3);
    await verify(jwt, 'b');
    expect(server.fetches).toBe(4);
  });
});
