import { describe, expect, it } from 'vitest';
import { boundedFetcher } from './bounded-fetcher.js';
import { fetchTransport } from './fetch-transport.js';
import { OutboundError, type OutboundTransport, type TransportRequest } from './outbound.js';

/** A transport that records what it was asked and answers `answer`. */
function recording(answer: () => Response, resolvesAddresses = true) {
  const sent: TransportRequest[] = [];
  const transport: OutboundTransport = {
    resolvesAddresses,
    send: async (request) => {
      sent.push(request);
      return answer();
    },
  };
  return { sent, fetcher: boundedFetcher(transport, { timeoutMs: 200, maxBytes: 16 }) };
}

const ok = () => new Response('{"ok":true}', { status: 200 });

const refused = (failure: string, message: string) =>
  expect.objectContaining({
    name: OutboundError.name,
    failure,
    message: expect.stringContaining(message),
  });

describe('boundedFetcher', () => {
  it('sends an operator URL anywhere, http and loopback included, without the public-only check', async () => {
    const { sent, fetcher } = recording(ok, false);
    const answer = await fetcher.send({ url: 'http://127.0.0.1:9/hook', author: 'operator' });
    expect(answer).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect(sent[0]).toMatchObject({ method: 'GET', publicOnly: false });
  });

  it('asks the transport to keep an outside URL on public addresses', async () => {
    const { sent, fetcher } = recording(ok);
    await fetcher.send({ url: 'https://client.example.com/meta', author: 'outside' });
    expect(sent[0]?.publicOnly).toBe(true);
  });

  it('lets an outside URL reach private networks when its realm allows them', async () => {
    const { sent, fetcher } = recording(ok, false);
    const url = 'https://10.0.0.8/meta';
    await fetcher.send({ url, author: 'outside', allowPrivateNetworks: true });
    expect(sent[0]?.publicOnly).toBe(false);
  });

  it.each([
    ['http', 'http://client.example.com/meta', 'refused_url', 'not https'],
    ['credentials', 'https://user:pw@client.example.com/meta', 'refused_url', 'credentials'],
    ['another scheme', 'file:///etc/passwd', 'refused_url', 'file:'],
    ['no URL', 'client.example.com', 'refused_url', 'absolute URL'],
  ])('refuses an outside URL with %s before sending anything', async (_, url, failure, message) => {
    const { sent, fetcher } = recording(ok);
    await expect(fetcher.send({ url, author: 'outside' })).rejects.toThrow(
      refused(failure, message),
    );
    expect(sent).toEqual([]);
  });

  it('sends no outside URL through a transport that cannot check resolved addresses', async () => {
    const { sent, fetcher } = recording(ok, false);
    const sending = fetcher.send({ url: 'https://client.example.com/meta', author: 'outside' });
    await expect(sending).rejects.toThrow(refused('refused_address', 'private addresses'));
    expect(sent).toEqual([]);
  });

  it.each([301, 302, 303, 307, 308])(
    'fails on a %i redirect instead of following it',
    async (status) => {
      const { fetcher } = recording(
        () => new Response(null, { status, headers: { location: '/x' } }),
      );
      const sending = fetcher.send({ url: 'https://a.example.com/', author: 'outside' });
      await expect(sending).rejects.toThrow(refused('redirect', `HTTP ${status}`));
    },
  );

  it('fails on a body past maxBytes, declared or streamed', async () => {
    const declared = recording(
      () => new Response('{}', { headers: { 'content-length': '1000000' } }),
    ).fetcher;
    await expect(
      declared.send({ url: 'https://a.example.com/', author: 'outside' }),
    ).rejects.toThrow(refused('too_large', 'more than 16 bytes'));
    const streamed = recording(() => new Response('x'.repeat(17))).fetcher;
    await expect(
      streamed.send({ url: 'https://a.example.com/', author: 'outside' }),
    ).rejects.toThrow(refused('too_large', 'more than 16 bytes'));
  });

  it('takes a per-request bound over the default', async () => {
    const { fetcher } = recording(() => new Response('x'.repeat(17)));
    const answer = await fetcher.send({
      url: 'https://a.example.com/',
      author: 'outside',
      maxBytes: 17,
    });
    expect(answer.body).toHaveLength(17);
  });

  it('reads no body when the status says all', async () => {
    const { fetcher } = recording(() => new Response('x'.repeat(1000), { status: 202 }));
    const answer = await fetcher.send({
      url: 'https://a.example.com/',
      author: 'outside',
      ignoreBody: true,
    });
    expect(answer).toMatchObject({ status: 202, body: '' });
  });

  it('fails when no complete answer comes within the timeout, the body included', async () => {
    const trickle = () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{'));
          },
        }),
      );
    const { fetcher } = recording(trickle);
    await expect(
      fetcher.send({ url: 'https://a.example.com/', author: 'outside' }),
    ).rejects.toThrow(refused('timeout', 'within 200 ms'));
  });

  it('gives a request up when its own signal aborts, and says so', async () => {
    const hanging: OutboundTransport = {
      resolvesAddresses: true,
      send: ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    };
    const closing = new AbortController();
    const sending = boundedFetcher(hanging).send({
      url: 'https://a.example.com/',
      author: 'operator',
      signal: closing.signal,
    });
    closing.abort();
    await expect(sending).rejects.toThrow(refused('aborted', 'given up'));
  });

  it('calls a failure to connect a network failure, keeping the cause', async () => {
    const transport = fetchTransport(async () => {
      throw new TypeError('fetch failed');
    });
    const fetcher = boundedFetcher(transport);
    await expect(fetcher.send({ url: 'http://127.0.0.1:9/', author: 'operator' })).rejects.toThrow(
      refused('network', 'could not be reached'),
    );
  });
});
