import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fakeClock } from '../../../../test/support/fixtures.js';
import { FAILED_FETCH_COOLDOWN_MS, remoteKeySet } from './remote-key-set.js';

let server: Server;
let url: string;
let hits = 0;
let healthy = false;
let publicJwk: JWK;

beforeAll(async () => {
  const { publicKey } = await generateKeyPair('ES256');
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  server = createServer((_, response) => {
    hits++;
    if (!healthy) return response.writeHead(500).end();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

it('answers a failed fetch again during the cooldown without fetching, then tries again', async () => {
  const clock = fakeClock();
  const keySet = remoteKeySet(url, clock.now);
  const lookup = () => keySet({ alg: 'ES256', kid: 'k1' }, { payload: '', signature: '' });

  await expect(lookup()).rejects.toThrow();
  await expect(lookup()).rejects.toThrow();
  expect(hits).toBe(1);

  healthy = true;
  clock.advance(FAILED_FETCH_COOLDOWN_MS / 1000 - 1);
  await expect(lookup()).rejects.toThrow();
  expect(hits).toBe(1);

  clock.advance(2);
  await expect(lookup()).resolves.toBeDefined();
  expect(hits).toBe(2);
});
