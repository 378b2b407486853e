import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetcher } from '../outbound/bounded-fetcher.js';
import { fetchTransport } from '../outbound/fetch-transport.js';
import { fetchJwks, JwksFetchError, type JwksFetchLimits } from './fetch-jwks.js';

/** The provider's default fetcher: the global fetch, bounded. */
const FETCHER = boundedFetcher(fetchTransport());
const LIMITS: JwksFetchLimits = { timeoutMs: 1000, maxBytes: 4096, maxKeys: 3 };
const KEY = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };

/** What the server wrote of each endless answer before the client went away. */
const written = new Map<string, number>();
const answers = new Map<string, (response: ServerResponse) => void>([
  ['/ok', (response) => json(response, { keys: [KEY] })],
  ['/missing', (response) => response.writeHead(404).end()],
  ['/moved', (response) => response.writeHead(302, { location: '/ok' }).end()],
  ['/not-json', (response) => response.writeHead(200).end('<html>')],
  ['/not-a-set', (response) => json(response, { keys: 'none' })],
  ['/many-keys', (response) => json(response, { keys: [KEY, KEY, KEY, KEY] })],
  [
    '/declared-large',
    (response) => response.writeHead(200, { 'content-length': '100000000' }).write('{'),
  ],
  ['/endless', (response) => endless(response, '/endless', 0)],
  ['/slow', (response) => endless(response, '/slow', 200)],
]);

function json(response: ServerResponse, body: unknown) {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** `{"keys":[` followed by spaces for ever, as fast as the client takes them or every `delayMs`. */
function endless(response: ServerResponse, path: string, delayMs: number) {
  response.writeHead(200, { 'content-type': 'application/json' });
  let total = 0;
  const chunk = delayMs > 0 ? ' ' : ' '.repeat(64 * 1024);
  const more = () => {
    if (response.destroyed) return;
    total += chunk.length;
    written.set(path, total);
    if (delayMs > 0) setTimeout(() => response.write(chunk, more), delayMs);
    else response.write(chunk, more);
  };
  response.write('{"keys":[', more);
}

let base: string;
const server = createServer((request, response) => {
  response.on('error', () => {});
  answers.get(request.url ?? '')?.(response);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

describe('fetchJwks', () => {
  it('returns the key set', async () => {
    expect(await fetchJwks(`${base}/ok`, LIMITS, FETCHER)).toEqual({ keys: [KEY] });
  });

  it.each([
    ['/missing', 'HTTP 404'],
    ['/moved', 'HTTP 302'],
    ['/not-json', 'did not answer with JSON'],
    ['/not-a-set', 'did not answer with a JWK Set'],
    ['/many-keys', '4 keys, more than 3'],
    ['/declared-large', 'more than 4096 bytes'],
  ])('refuses %s: %s', async (path, reason) => {
    await expect(fetchJwks(`${base}${path}`, LIMITS, FETCHER)).rejects.toThrow(
      expect.objectContaining({
        name: JwksFetchError.name,
        message: expect.stringContaining(reason),
      }),
    );
  });

  it('stops reading an endless document once it passes the byte limit', async () => {
    await expect(fetchJwks(`${base}/endless`, LIMITS, FETCHER)).rejects.toThrow(
      'more than 4096 bytes',
    );
    // What the server managed to send before the connection closed: socket buffers, not the
    // hundreds of megabytes an unbounded read would have taken in.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written.get('/endless')).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives up on a document that trickles in past the timeout', async () => {
    await expect(fetchJwks(`${base}/slow`, { ...LIMITS, timeoutMs: 300 }, FETCHER)).rejects.toThrow(
      'gave no complete answer within 300 ms',
    );
  });

  it('reports an unreachable server as a fetch failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchJwks(`http://127.0.0.1:${port}/jwks`, LIMITS, FETCHER)).rejects.toThrow(
      'could not be reached',
    );
  });
});
