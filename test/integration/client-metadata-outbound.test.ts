import type { LookupAddress } from 'node:dns';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createProvider, type Provider } from '@gatehouse-oidc/core';
import { nodeOutbound } from '@gatehouse-oidc/node-outbound';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOOPBACK_TLS } from '../support/tls.js';
import { S256_CHALLENGE } from './browser.js';
import { BASE_URL } from './harness.js';

/**
 * Client metadata documents through the Node.js transport the standalone server uses, against an
 * https server on loopback (the only address a test ever connects to). A realm that keeps to
 * public addresses refuses documents on loopback, by IP literal or by a name that resolves
 * there, before any connection; a realm that allows private networks reaches the server and
 * refuses what it answers wrong. Each refusal is invalid_client shown at the provider, says why
 * without naming an address the client_id did not, and leaves nothing kept: the next request
 * fetches again.
 */

const REDIRECT = 'http://127.0.0.1:50000/callback';
let origin: string;
let port: number;
const hits: string[] = [];
const answers = new Map<string, (response: ServerResponse) => void>();

const server = createServer(
  { cert: LOOPBACK_TLS.cert, key: LOOPBACK_TLS.key },
  (request, response) => {
    hits.push(request.url ?? '');
    const answer = answers.get(request.url ?? '');
    if (answer) answer(response);
    else response.writeHead(404).end();
  },
);

const documentOf = (clientId: string) =>
  JSON.stringify({
    client_id: clientId,
    client_name: 'Agent',
    redirect_uris: ['http://127.0.0.1/callback'],
  });

const json = (body: string) => (response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(body);

/** Answers every name with 127.0.0.1, as a rebinding or misconfigured DNS server could. */
const resolveToLoopback = (
  _hostname: string,
  _options: unknown,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => callback(null, [{ address: '127.0.0.1', family: 4 }]);

let provider: Provider;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  origin = `https://localhost:${port}`;
  provider = createProvider({
    baseUrl: BASE_URL,
    realms: [
      { name: 'public', client_id_metadata_documents: { enabled: true } },
      {
        name: 'lab',
        client_id_metadata_documents: { enabled: true, private_networks: true, max_bytes: 1024 },
      },
    ],
    outbound: nodeOutbound({ ca: [LOOPBACK_TLS.cert], resolveAll: resolveToLoopback }),
    onError: () => {},
  });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  hits.length = 0;
  answers.clear();
});

/** The authorization request of the client `clientId` in `realm`. */
async function authorize(realm: string, clientId: string) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
  });
  return provider.handle({
    method: 'GET',
    path: `/oauth/${realm}/authorize`,
    query: query.toString(),
    headers: {},
  });
}

async function expectRefused(realm: string, clientId: string, reason: string) {
  const answer = await authorize(realm, clientId);
  expect(answer.status).toBe(400);
  expect(answer.headers.location).toBeUndefined();
  expect(answer.body).toContain('<code id="error">invalid_client</code>');
  expect(answer.body).toContain(
    `the client&#39;s metadata document could not be fetched: ${reason}`,
  );
  return answer.body ?? '';
}

describe('client metadata documents through the Node.js transport', () => {
  it('reaches a document on loopback when the realm allows private networks', async () => {
    const clientId = `${origin}/ok.json`;
    answers.set('/ok.json', json(documentOf(clientId)));
    const answer = await authorize('lab', clientId);
    expect(answer.status).toBe(302);
    expect(hits).toEqual(['/ok.json']);
  });

  it('refuses a document at a loopback IP before connecting', async () => {
    const clientId = `https://127.0.0.1:${port}/doc.json`;
    answers.set('/doc.json', json(documentOf(clientId)));
    await expectRefused('public', clientId, '127.0.0.1 is not a public address');
    await expectRefused('public', clientId, '127.0.0.1 is not a public address');
    expect(hits).toEqual([]);
  });

  it('refuses a name that resolves to loopback, without saying the address', async () => {
    const clientId = `https://agent.cimd.test:${port}/doc.json`;
    answers.set('/doc.json', json(documentOf(clientId)));
    const page = await expectRefused(
      'public',
      clientId,
      'agent.cimd.test resolves to an address that is not public',
    );
    expect(page).not.toContain('127.0.0.1');
    expect(hits).toEqual([]);
  });

  it.each([
    [
      'a redirect',
      (response: ServerResponse) => response.writeHead(302, { location: '/ok.json' }).end(),
      'answered HTTP 302 (a redirect, not followed)',
    ],
    [
      'an answer larger than max_bytes',
      json(JSON.stringify({ padding: 'x'.repeat(2000) })),
      'answered with more than 1024 bytes',
    ],
    [
      'an HTTP error',
      (response: ServerResponse) => response.writeHead(500).end(),
      'answered HTTP 500',
    ],
  ])('refuses %s, and fetches again next time', async (_, answer, reason) => {
    const clientId = `${origin}/bad.json`;
    answers.set('/bad.json', answer);
    await expectRefused('lab', clientId, reason);
    await expectRefused('lab', clientId, reason);
    expect(hits).toEqual(['/bad.json', '/bad.json']);
  });

  it('refuses a document whose client_id is another URL, and fetches again next time', async () => {
    const clientId = `${origin}/claims-another.json`;
    answers.set('/claims-another.json', json(documentOf(`${origin}/ok.json`)));
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await authorize('lab', clientId);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('names another client_id than the URL it is at');
    }
    expect(hits).toHaveLength(2);
  });

  it('gives up on a document that does not arrive within 5 s', { timeout: 15_000 }, async () => {
    const clientId = `${origin}/slow.json`;
    answers.set('/slow.json', (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{');
    });
    await expectRefused('lab', clientId, 'gave no complete answer within 5000 ms');
    answers.set('/slow.json', json(documentOf(clientId)));
    expect((await authorize('lab', clientId)).status).toBe(302);
    expect(hits).toEqual(['/slow.json', '/slow.json']);
  });
});
