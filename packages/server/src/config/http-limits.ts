import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import { z } from 'zod';

const milliseconds = (what: string, defaultMs: number) =>
  z.number().int().min(1).max(600_000).default(defaultMs).describe(what);

/**
 * How long a connection may take over each stage, and how large its headers may be. Node and
 * Fastify wait forever by default, so slow senders could hold every file descriptor.
 */
export const httpLimitsSchema = z
  .strictObject({
    headers_timeout_ms: milliseconds(
      'Time to receive the request line and headers; past it the connection is answered 408 and closed.',
      10_000,
    ),
    request_timeout_ms: milliseconds(
      'Time to receive the whole request, headers and body; past it the connection is answered 408 and closed.',
      30_000,
    ),
    keep_alive_timeout_ms: milliseconds(
      'How long an idle keep-alive connection stays open after a response. Behind a proxy, set it longer than the proxy’s own idle timeout.',
      5_000,
    ),
    idle_timeout_ms: milliseconds(
      'How long a connection may stay silent in either direction (a client that stops reading, say) before it is closed.',
      60_000,
    ),
    max_header_bytes: z
      .number()
      .int()
      .min(1024)
      .max(1_048_576)
      .default(16_384)
      .describe('Largest request line and headers together; a larger request is answered 431.'),
  })
  .superRefine((limits, ctx) => {
    // Node refuses to start a server whose headers may take longer than the whole request.
    if (limits.headers_timeout_ms > limits.request_timeout_ms) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers_timeout_ms'],
        message: 'must not be more than request_timeout_ms',
      });
    }
  });

export type HttpLimits = z.output<typeof httpLimitsSchema>;

/** Node checks request and header timeouts on a timer (30 s by default): 4 checks per timeout. */
const CHECKS_PER_TIMEOUT = 4;

/** The Fastify and node:http server options that enforce the limits. */
export function httpServerOptions(limits: HttpLimits): FastifyHttpOptions<Server> {
  return {
    requestTimeout: limits.request_timeout_ms,
    keepAliveTimeout: limits.keep_alive_timeout_ms,
    connectionTimeout: limits.idle_timeout_ms,
    http: {
      headersTimeout: limits.headers_timeout_ms,
      maxHeaderSize: limits.max_header_bytes,
      connectionsCheckingInterval: Math.ceil(limits.headers_timeout_ms / CHECKS_PER_TIMEOUT),
    },
  };
}
