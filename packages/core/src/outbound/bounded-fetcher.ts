import { BODY_TOO_LARGE, readBodyStream } from '../http/read-body-stream.js';
import {
  OutboundError,
  type OutboundFetcher,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundTransport,
} from './outbound.js';

export interface OutboundLimits {
  /** Milliseconds for the whole exchange, body included. */
  timeoutMs: number;
  /** Bytes of body read at most; the transfer is abandoned as soon as it goes past. */
  maxBytes: number;
}

export const DEFAULT_OUTBOUND_LIMITS: Readonly<OutboundLimits> = {
  timeoutMs: 5000,
  maxBytes: 64 * 1024,
};

/**
 * The fetcher every outbound request of a provider goes through. The timeout covers the body
 * too and the body is read as a stream, cut once it passes `maxBytes` whatever Content-Length
 * claims, so a slow or endless answer costs at most the limits. A 3xx answer fails: the URL that
 * was written is the one trusted. An outside URL must be https without credentials, and a
 * transport that cannot check resolved addresses sends none to a host name or IP literal it
 * cannot vouch for.
 */
export function boundedFetcher(
  transport: OutboundTransport,
  defaults: OutboundLimits = DEFAULT_OUTBOUND_LIMITS,
): OutboundFetcher {
  return {
    async send(request: OutboundRequest): Promise<OutboundResponse> {
      const url = checkedUrl(request, transport);
      const timeoutMs = request.timeoutMs ?? defaults.timeoutMs;
      const maxBytes = request.maxBytes ?? defaults.maxBytes;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      // A listener, not AbortSignal.any: on Node.js 20 every signal made that way stays among a
      // long-lived signal's dependants, one more per request.
      const giveUp = () => controller.abort();
      if (request.signal?.aborted) giveUp();
      request.signal?.addEventListener('abort', giveUp, { once: true });
      try {
        const response = await transport.send({
          url,
          method: request.method ?? 'GET',
          headers: request.headers ?? {},
          ...(request.body === undefined ? {} : { body: request.body }),
          signal: controller.signal,
          publicOnly: request.author === 'outside' && request.allowPrivateNetworks !== true,
        });
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel().catch(() => {});
          throw new OutboundError(
            'redirect',
            `answered HTTP ${response.status} (a redirect, not followed)`,
          );
        }
        if (request.ignoreBody) {
          await response.body?.cancel().catch(() => {});
          return { status: response.status, headers: response.headers, body: '' };
        }
        const body = await readCapped(response, maxBytes, controller.signal);
        return { status: response.status, headers: response.headers, body };
      } catch (error) {
        if (error instanceof OutboundError) throw error;
        if (request.signal?.aborted) {
          throw new OutboundError('aborted', 'was given up', { cause: error });
        }
        if (controller.signal.aborted) {
          throw new OutboundError('timeout', `gave no complete answer within ${timeoutMs} ms`, {
            cause: error,
          });
        }
        throw new OutboundError('network', 'could not be reached', { cause: error });
      } finally {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', giveUp);
        controller.abort();
      }
    },
  };
}

function checkedUrl(request: OutboundRequest, transport: OutboundTransport): URL {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new OutboundError('refused_url', 'is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundError('refused_url', `uses ${url.protocol}, not https`);
  }
  if (request.author === 'operator') return url;
  if (url.protocol !== 'https:') throw new OutboundError('refused_url', 'is not https');
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('refused_url', 'carries credentials');
  }
  if (request.allowPrivateNetworks !== true && !transport.resolvesAddresses) {
    throw new OutboundError(
      'refused_address',
      'cannot be checked for private addresses by this transport (give the provider one that resolves addresses, or allow private networks)',
    );
  }
  return url;
}

/**
 * The body, refused past `maxBytes` declared or read. The read also ends when `signal` aborts,
 * for a transport whose body does not follow its own signal.
 */
async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string> {
  const tooLarge = () =>
    new OutboundError('too_large', `answered with more than ${maxBytes} bytes`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(new Error('aborted while reading the body'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  const body = await Promise.race([readBodyStream(response.body, maxBytes), aborted]);
  if (body === BODY_TOO_LARGE) throw tooLarge();
  return new TextDecoder().decode(body);
}
