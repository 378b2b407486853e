/**
 * `@gatehouse-oidc/resource-server/fastify`: the kit as a Fastify (4 or 5) hook. The verified
 * token is `request.accessToken` in the handler.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessToken } from '../access-token.js';
import type { ProtectedResourceMetadata } from '../metadata.js';
import { nodeHeaders } from '../node-headers.js';
import type { Requirement, ResourceServer } from '../resource-server.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The access token `requireToken` verified. */
    accessToken?: AccessToken;
  }
}

/**
 * A `preHandler` (or `onRequest`) hook that lets a request through when its token passes
 * `server.verify` (with the route's `scopes`), with the token as `request.accessToken`, and
 * answers the challenge otherwise:
 * `app.get('/things', { preHandler: requireToken(server, { scopes: ['things:read'] }) }, handler)`.
 */
export function requireToken(
  server: ResourceServer,
  requirement?: Requirement,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  return async (request, reply) => {
    const verdict = await server.verify(
      { method: request.method, url: request.url, headers: nodeHeaders(request.headers) },
      requirement,
    );
    if (verdict.ok) {
      request.accessToken = verdict.token;
      return undefined;
    }
    // An async hook that answers returns the reply, so Fastify stops there.
    return reply.code(verdict.status).headers(verdict.headers).send(verdict.body);
  };
}

/** Serves the RFC 9728 metadata: `app.get(server.metadataPath, metadataHandler(server))`. */
export function metadataHandler(
  server: ResourceServer,
): () => Promise<Readonly<ProtectedResourceMetadata>> {
  return async () => server.metadata;
}
