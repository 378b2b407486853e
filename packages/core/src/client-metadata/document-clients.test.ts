import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClientMetadataDocumentsConfig } from '../config/client-metadata-documents.js';
import { OutboundError, type OutboundFetcher, type OutboundRequest } from '../outbound/outbound.js';
import { createProvider } from '../provider.js';
import type { Realm } from '../realms/realm.js';
import { fakeClock } from '../testing/clock.js';
import { MetadataDocumentError } from './document-client.js';
import { MetadataDocumentClients } from './document-clients.js';

const URL_ID = 'https://agent.example.com/client.json';
const DOCUMENT = JSON.stringify({ client_id: URL_ID, redirect_uris: ['http://127.0.0.1/cb'] });

let realm: Realm;
let settings: ClientMetadataDocumentsConfig;
beforeAll(async () => {
  const provider = createProvider({
    baseUrl: 'https://id.example.com',
    realms: [
      {
        name: 'r',
        client_id_metadata_documents: { enabled: true, cache_seconds: { min: 60, max: 3600 } },
      },
    ],
  });
  realm = (await provider.realm('r')) as Realm;
  settings = realm.config.client_id_metadata_documents as ClientMetadataDocumentsConfig;
});

type Answer = () => Promise<{ status: number; headers?: Record<string, string>; body: string }>;

interface DocumentServer {
  sent: OutboundRequest[];
  answer: Answer;
  fetcher: OutboundFetcher;
}

/** A fetcher that answers with `answer`, counting what it was sent. */
function documentServer(): DocumentServer {
  const server: DocumentServer = {
    sent: [],
    answer: async () => ({ status: 200, body: DOCUMENT }),
    fetcher: {
      async send(request) {
        server.sent.push(request);
        const { status, headers = {}, body } = await server.answer();
        return { status, headers: new Headers(headers), body };
      },
    },
  };
  return server;
}

let clock: ReturnType<typeof fakeClock>;
let server: DocumentServer;
let clients: MetadataDocumentClients;
beforeEach(() => {
  clock = fakeClock();
  server = documentServer();
  clients = new MetadataDocumentClients(clock.now, server.fetcher, 2);
});

const client = () => clients.client(realm, new URL(URL_ID), settings);
const cacheControl = (value: string) => {
  server.answer = async () => ({
    status: 200,
    headers: { 'cache-control': value },
    body: DOCUMENT,
  });
};

describe('MetadataDocumentClients', () => {
  it('fetches a document as an outside URL within the realm bounds, and makes its client', async () => {
    const made = await client();
    expect(made).toMatchObject({ id: URL_ID, source: 'metadata_document' });
    expect(server.sent).toEqual([
      expect.objectContaining({
        url: URL_ID,
        author: 'outside',
        allowPrivateNetworks: false,
        maxBytes: 5120,
        timeoutMs: 5000,
      }),
    ]);
  });

  it('keeps a document for its max-age within the bounds', async () => {
    cacheControl('public, max-age=600');
    await client();
    clock.advance(599);
    await client();
    expect(server.sent).toHaveLength(1);
    clock.advance(1);
    await client();
    expect(server.sent).toHaveLength(2);
  });

  it('keeps a document at most the upper bound, whatever its max-age', async () => {
    cacheControl('max-age=999999');
    await client();
    clock.advance(3600);
    await client();
    expect(server.sent).toHaveLength(2);
  });

  it.each(['no-store', 'no-cache', 'max-age=5'])(
    'keeps a document that says %s for the lower bound only',
    async (value) => {
      cacheControl(value);
      await client();
      clock.advance(59);
      await client();
      expect(server.sent).toHaveLength(1);
      clock.advance(1);
      await client();
      expect(server.sent).toHaveLength(2);
    },
  );

  it('keeps nothing when the lower bound is 0 and the document says no-store', async () => {
    cacheControl('no-store');
    const strict = { ...settings, cache_seconds: { min: 0, max: 3600 } };
    await clients.client(realm, new URL(URL_ID), strict);
    await clients.client(realm, new URL(URL_ID), strict);
    expect(server.sent).toHaveLength(2);
    expect(clients.size).toBe(0);
  });

  it('shares one fetch between the requests that arrive while it runs', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.answer = async () => {
      await held;
      return { status: 200, body: DOCUMENT };
    };
    const waiting = [client(), client(), client()];
    release();
    const made = await Promise.all(waiting);
    expect(server.sent).toHaveLength(1);
    expect(new Set(made).size).toBe(1);
  });

  it.each([
    [
      'a failed fetch',
      async () =>
        Promise.reject(new OutboundError('timeout', 'gave no complete answer within 5000 ms')),
    ],
    ['an HTTP error', async () => ({ status: 404, body: 'not found' })],
    ['an invalid document', async () => ({ status: 200, body: '[]' })],
    [
      'a mismatched client_id',
      async () => ({ status: 200, body: DOCUMENT.replace('client.json', 'other.json') }),
    ],
  ] as Array<[string, Answer]>)('keeps nothing after %s, and fetches again', async (_, answer) => {
    server.answer = answer;
    await expect(client()).rejects.toThrow(MetadataDocumentError);
    expect(clients.size).toBe(0);
    server.answer = async () => ({ status: 200, body: DOCUMENT });
    await expect(client()).resolves.toMatchObject({ id: URL_ID });
    expect(server.sent).toHaveLength(2);
  });

  it('fails every request that shared a failed fetch', async () => {
    server.answer = async () => ({ status: 500, body: '' });
    const failures = await Promise.allSettled([client(), client()]);
    expect(failures.map((each) => each.status)).toEqual(['rejected', 'rejected']);
    expect(server.sent).toHaveLength(1);
  });

  it('forgets the least recently used document past its bound', async () => {
    const other = (n: number) => `https://agent.example.com/client-${n}.json`;
    server.answer = async () => {
      const url = server.sent.at(-1)?.url ?? '';
      return {
        status: 200,
        body: JSON.stringify({ client_id: url, redirect_uris: ['https://a.example/cb'] }),
      };
    };
    await clients.client(realm, new URL(other(1)), settings);
    await clients.client(realm, new URL(other(2)), settings);
    await clients.client(realm, new URL(other(1)), settings);
    await clients.client(realm, new URL(other(3)), settings);
    expect(clients.size).toBe(2);
    await clients.client(realm, new URL(other(1)), settings);
    expect(server.sent).toHaveLength(3);
    await clients.client(realm, new URL(other(2)), settings);
    expect(server.sent).toHaveLength(4);
  });
});
