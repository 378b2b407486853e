import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { OutboundError, type OutboundTransport } from '@gatehouse-oidc/core';
import { Agent, fetch } from 'undici';
import { isPublicAddress } from './public-address.js';
import { publicOnlyLookup, type ResolveAll } from './public-lookup.js';

export interface NodeOutboundOptions {
  /** Resolves names for outside URLs (tests); default `dns.lookup`. */
  resolveAll?: ResolveAll;
  /**
   * PEM certificates trusted beside Node.js's bundled roots (a private CA, or a test's own);
   * given, they stand in for `NODE_EXTRA_CA_CERTS`. Default: Node.js's trusted roots.
   */
  ca?: readonly string[];
}

/**
 * Gatehouse's outbound requests on Node.js (`createProvider({ outbound: nodeOutbound() })`),
 * sent with undici. URLs that came from outside reach public addresses only, checked on the
 * address the socket connects to: an IP literal before anything is sent, a name as it is
 * resolved. https certificates are verified against Node.js's trusted roots
 * (`NODE_EXTRA_CA_CERTS` adds one). Redirects are answered, never followed.
 */
export function nodeOutbound(options: NodeOutboundOptions = {}): OutboundTransport {
  const ca = options.ca ? { ca: [...rootCertificates, ...options.ca] } : {};
  const anywhere = new Agent({ connect: ca });
  const publicOnly = new Agent({
    connect: { ...ca, lookup: publicOnlyLookup(options.resolveAll) },
  });
  return {
    resolvesAddresses: true,
    async send({ url, method, headers, body, signal, publicOnly: onlyPublic }) {
      const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (onlyPublic && isIP(literal) !== 0 && !isPublicAddress(literal)) {
        throw new OutboundError('refused_address', `${url.hostname} is not a public address`);
      }
      try {
        const response = await fetch(url, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          redirect: 'manual',
          signal,
          dispatcher: onlyPublic ? publicOnly : anywhere,
        });
        // undici's Response is the WHATWG one Node.js's global fetch also returns.
        return response as unknown as Response;
      } catch (error) {
        throw refusalIn(error) ?? error;
      }
    },
  };
}

/** The refusal of the lookup, which undici wraps in its own "fetch failed". */
function refusalIn(error: unknown): OutboundError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof OutboundError) return cause;
  }
  return undefined;
}
