import type { OutboundTransport } from './outbound.js';

/**
 * A transport on a `fetch` (the global one by default). It cannot see the addresses a host name
 * resolves to, so the bounded fetcher sends it no outside URL unless the realm allows private
 * networks: on Node.js, `nodeOutbound()` of `@gatehouse-oidc/node-outbound` checks them. On a
 * runtime whose fetch cannot reach private networks at all (Cloudflare Workers), say so with
 * `resolvesAddresses: true`.
 */
export function fetchTransport(
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
  { resolvesAddresses = false }: { resolvesAddresses?: boolean } = {},
): OutboundTransport {
  return {
    resolvesAddresses,
    send: ({ url, method, headers, body, signal }) =>
      fetchImpl(url.href, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal,
      }),
  };
}
