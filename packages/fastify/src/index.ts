import type { Provider } from '@gatehouse-oidc/core';
import {
  bodyLimit,
  type GatehouseRequest,
  type GatehouseResponse,
  joinHeaderValues,
  payloadTooLargeResponse,
  WELL_KNOWN_ROOTS,
  wellKnownRequest,
} from '@gatehouse-oidc/core/adapter';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';

export interface GatehouseFastifyOptions {
  provider: Provider;
}

/**
 * Mounts Gatehouse in a Fastify app: `app.register(gatehouse, { provider, prefix: '/auth' })`.
 * The plugin is encapsulated (not wrapped in fastify-plugin), so its raw-body parser and error
 * handler apply to Gatehouse's routes only, never to the host application's.
 */
export const gatehouse: FastifyPluginAsync<GatehouseFastifyOptions> = async (app, { provider }) => {
  const prefix = app.prefix;
  takeRawBodies(app, provider);
  const handler = async (request: FastifyRequest, reply: FastifyReply) =>
    send(reply, await provider.handle(toGatehouseRequest(request, prefix)));
  // `/` answers the bare prefix, `/*` everything below it.
  app.all('/', handler);
  app.all('/*', handler);
};

/**
 * Answers, at the host's root, the paths where clients look for a realm's metadata by RFC 8414
 * path insertion (`/.well-known/oauth-authorization-server/{issuer path}`, and the same with
 * `openid-configuration`), which a provider registered under a prefix cannot reach:
 * `app.register(gatehouseWellKnown, { provider })`, without a prefix. Encapsulated like
 * `gatehouse`.
 */
export const gatehouseWellKnown: FastifyPluginAsync<GatehouseFastifyOptions> = async (
  app,
  { provider },
) => {
  takeRawBodies(app, provider);
  const handler = async (request: FastifyRequest, reply: FastifyReply) =>
    send(reply, await provider.handle(wellKnownRequest(provider, toGatehouseRequest(request, ''))));
  for (const root of WELL_KNOWN_ROOTS) {
    app.all(root, handler);
    app.all(`${root}/*`, handler);
  }
};

/** Bodies reach the core as bytes, within its limit, for this plugin's routes only. */
function takeRawBodies(app: FastifyInstance, provider: Provider): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: bodyLimit(provider) },
    (_request, body, done) => done(null, body),
  );
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.statusCode === 413) return send(reply, payloadTooLargeResponse());
    throw error;
  });
}

/** Built from the raw URL so neither the path nor the query is decoded on the way to the core. */
function toGatehouseRequest(request: FastifyRequest, prefix: string): GatehouseRequest {
  const url = request.url;
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  return {
    method: request.method,
    path: pathname.slice(prefix.length) || '/',
    query: queryAt === -1 ? '' : url.slice(queryAt + 1),
    headers: joinHeaderValues(request.headers),
    ...(Buffer.isBuffer(request.body) ? { body: request.body } : {}),
  };
}

/** Writes a Gatehouse response with Fastify; for the host's own routes that answer like Gatehouse. */
export function send(reply: FastifyReply, response: GatehouseResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  if (response.cookies) reply.header('set-cookie', [...response.cookies]);
  return reply.send(response.body);
}
