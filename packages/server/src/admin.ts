import { createHash, timingSafeEqual } from 'node:crypto';
import { type Provider, StoreUnavailableError } from '@gatehouse/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorReporter } from './report-error.js';

export interface AdminOptions {
  provider: Provider;
  /** The configured admin_token; every route here needs `Authorization: Bearer {token}`. */
  token: string;
  report: ErrorReporter;
}

/** Admin requests carry no body worth reading; anything larger is refused early. */
const MAX_BODY_BYTES = 1024;

/**
 * The admin API, registered under `/admin`. Every route, known or not, first checks the bearer
 * token, so an unauthenticated caller learns nothing about which realms or routes exist.
 */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (
  app,
  { provider, token, report },
) => {
  const isAdmin = bearerCheck(token);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_request, _body, done) => done(null),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (isAdmin(request.headers.authorization)) return;
    const challenge = request.headers.authorization ? 'Bearer error="invalid_token"' : 'Bearer';
    reply.header('www-authenticate', challenge);
    return sendError(reply, 401, 'invalid_token');
  });
  // The same answers as the provider's own: no internal detail ever reaches the caller.
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendError(reply, status, 'invalid_request');
    report(error, { method: request.method, path: pathOf(request) });
    if (error instanceof StoreUnavailableError) {
      reply.header('retry-after', '1');
      return sendError(
        reply,
        503,
        'temporarily_unavailable',
        'the service is temporarily unavailable',
      );
    }
    return sendError(reply, 500, 'server_error', 'an unexpected error occurred');
  });

  app.post<{ Params: { realm: string } }>('/realms/:realm/keys/rotate', async (request, reply) => {
    const { realm } = request.params;
    if (!(await provider.realm(realm))) return sendError(reply, 404, 'not_found', 'unknown realm');
    await provider.rotateKeys(realm);
    return reply.code(204).send();
  });

  app.all('/*', async (_request, reply) =>
    sendError(reply, 404, 'not_found', 'no such admin endpoint'),
  );
};

/** Compares digests, so neither the content nor the length of the token leaks through timing. */
function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    return presented !== undefined && timingSafeEqual(digest(presented), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function sendError(
  reply: FastifyReply,
  status: number,
  error: string,
  description?: string,
): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send(description ? { error, error_description: description } : { error });
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?', 1)[0] ?? request.url;
}
