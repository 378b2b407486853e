import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli } from '../server/support.js';
import { type ClientKeyPair, clientKeyPair } from '../support/fixtures.js';
import {
  assertionTokenRequest,
  configWithClients,
  healthzMs,
  keyClient,
  loopbackServer,
  type Standalone,
  startStandalone,
} from './standalone.js';

/**
 * Issue 13, finding 3: in 0.4 one client whose jwks_uri answered a 377 MB document took the
 * provider to 6.2 GB and `/healthz` stopped answering for minutes. Here a jwks_uri served
 * locally answers 50 MB, or one byte every 200 ms, to `gatehouse serve` in its own process.
 */

const LARGE_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, ' ');

/** What the key server sent on each path, and when the provider hung up. */
const served = new Map<string, { bytes: number; closedAfterMs?: number }>();

let clientKeys: ClientKeyPair;
let jwks: Awaited<ReturnType<typeof loopbackServer>>;
let server: Standalone;

/** Writes `{"keys":[` then spaces until `bytes` are out or the reader is gone, at the reader's pace. */
function large(response: ServerResponse, sent: { bytes: number }) {
  const more = () => {
    if (response.destroyed) return;
    if (sent.bytes >= LARGE_BYTES) return response.end(']}');
    sent.bytes += CHUNK.length;
    response.write(CHUNK, more);
  };
  response.write('{"keys":[', more);
}

/** One byte every 200 ms, for longer than any test waits. */
function drip(response: ServerResponse, sent: { bytes: number }) {
  const timer = setInterval(() => {
    sent.bytes += 1;
    response.write(' ');
  }, 200);
  response.on('close', () => clearInterval(timer));
  response.write('{"keys":[');
}

beforeAll(async () => {
  clientKeys = await clientKeyPair('ES256', 'client-key');
  jwks = await loopbackServer((request, response) => {
    response.on('error', () => {});
    const path = request.url ?? '';
    const sent: { bytes: number; closedAfterMs?: number } = { bytes: 0 };
    served.set(path, sent);
    const started = performance.now();
    response.on('close', () => {
      sent.closedAfterMs = performance.now() - started;
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    if (path === '/large') large(response, sent);
    else drip(response, sent);
  });
  server = await startStandalone(
    configWithClients(
      keyClient('large', `${jwks.origin}/large`),
      keyClient('slow', `${jwks.origin}/slow`),
    ),
  );
});

afterAll(async () => {
  await server?.stop();
  killAllCli();
  await jwks?.close();
});

describe('a jwks_uri that answers too much or too slowly', () => {
  it('50 MB: the provider stops reading past its cap, answers invalid_client and stays healthy', async () => {
    const memoryBefore = await server.rss();
    const answer = await assertionTokenRequest(server, 'large', clientKeys);
    expect(answer.body.error).toBe('invalid_client');
    expect(await healthzMs(server)).toBeLessThan(1_000);

    // The transfer was cut: what the socket buffers took is all that left the key server.
    const sent = served.get('/large');
    await expect.poll(() => sent?.closedAfterMs, { timeout: 2_000 }).toBeDefined();
    expect(sent?.bytes).toBeLessThan(LARGE_BYTES / 4);
    expect((await server.rss()) - memoryBefore).toBeLessThan(64 * 1024 * 1024);
    // Within the backoff the failure is answered without fetching again.
    expect((await assertionTokenRequest(server, 'large', clientKeys)).body.error).toBe(
      'invalid_client',
    );
  });

  it('a byte every 200 ms: /healthz answers meanwhile, and the fetch gives up at its timeout', async () => {
    const started = performance.now();
    const token = assertionTokenRequest(server, 'slow', clientKeys);
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await healthzMs(server)).toBeLessThan(1_000);
    }
    const answer = await token;
    expect(answer.body.error).toBe('invalid_client');
    // The fetch's 5 s bound covers the body: the provider hung up, the key server did not.
    expect(performance.now() - started).toBeLessThan(8_000);
    await expect
      .poll(() => served.get('/slow')?.closedAfterMs, { timeout: 2_000 })
      .toBeLessThan(7_000);
    expect(await healthzMs(server)).toBeLessThan(1_000);
  });
});
