import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetcher, OutboundError } from '@gatehouse-oidc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutbound } from './index.js';
import { publicOnlyLookup } from './public-lookup.js';

/**
 * Only loopback is ever connected to here: what must be refused is refused before a socket
 * opens, and a name said to resolve to a public address is checked through the lookup alone.
 */

let origin: string;
const server = createServer((request, response) => {
  if (request.url === '/moved') return response.writeHead(302, { location: '/ok' }).end();
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A resolver that answers every name with `addresses`, counting its calls. */
function resolvingTo(...addresses: string[]) {
  const asked: string[] = [];
  const resolveAll = (
    hostname: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => void,
  ) => {
    asked.push(hostname);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { asked, resolveAll };
}

const refusedAddress = expect.objectContaining({
  name: OutboundError.name,
  failure: 'refused_address',
});

describe('nodeOutbound', () => {
  const fetcher = boundedFetcher(nodeOutbound());

  it('reaches an operator URL on loopback', async () => {
    const answer = await fetcher.send({ url: `${origin}/ok`, author: 'operator' });
    expect(answer).toMatchObject({ status: 200, body: '{"ok":true}' });
  });

  it('answers a redirect as a failure instead of following it', async () => {
    const sending = fetcher.send({ url: `${origin}/moved`, author: 'operator' });
    await expect(sending).rejects.toThrow(expect.objectContaining({ failure: 'redirect' }));
  });

  it('lets an outside URL on loopback through when the realm allows private networks', async () => {
    const url = `${origin.replace('http:', 'https:')}/ok`;
    // https to a plain-http server: it gets as far as the TLS handshake, so the address passed.
    const sending = fetcher.send({ url, author: 'outside', allowPrivateNetworks: true });
    await expect(sending).rejects.toThrow(expect.objectContaining({ failure: 'network' }));
  });

  it.each([
    'https://127.0.0.1/meta',
    'https://10.0.0.5/meta',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/meta',
    'https://[::ffff:127.0.0.1]/meta',
    'https://[fd00::1]/meta',
  ])('refuses the outside URL %s before opening a socket', async (url) => {
    await expect(fetcher.send({ url, author: 'outside' })).rejects.toThrow(refusedAddress);
  });

  it('refuses a name that resolves to a private address, at the lookup of the socket', async () => {
    const { asked, resolveAll } = resolvingTo('127.0.0.1');
    const guarded = boundedFetcher(nodeOutbound({ resolveAll }));
    const port = new URL(origin).port;
    const sending = guarded.send({ url: `https://metadata.example:${port}/`, author: 'outside' });
    await expect(sending).rejects.toThrow(refusedAddress);
    expect(asked).toEqual(['metadata.example']);
  });

  it('refuses a name when any of its addresses is private (a public one beside it changes nothing)', async () => {
    const { resolveAll } = resolvingTo('93.184.216.34', '10.0.0.1');
    const answer = await new Promise<unknown>((resolve) =>
      publicOnlyLookup(resolveAll)('mixed.example', { all: true }, (error) => resolve(error)),
    );
    expect(answer).toEqual(refusedAddress);
  });

  it('hands a name whose addresses are all public to the socket, in the shape it asked for', async () => {
    const { resolveAll } = resolvingTo('93.184.216.34', '2606:4700::1');
    const lookup = publicOnlyLookup(resolveAll);
    const all = await new Promise((resolve) =>
      lookup('public.example', { all: true }, (error, addresses) => resolve({ error, addresses })),
    );
    expect(all).toEqual({
      error: null,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
    const one = await new Promise((resolve) =>
      lookup('public.example', {}, (error, address, family) => resolve({ error, address, family })),
    );
    expect(one).toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });
});
