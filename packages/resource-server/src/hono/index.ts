/**
 * `@gatehouse-oidc/resource-server/hono`: the kit as Hono middleware, on any runtime Hono runs on.
 * The verified token is `c.get('accessToken')` in the routes behind it.
 */
import type { Handler, MiddlewareHandler } from 'hono';
import type { AccessToken } from '../access-token.js';
import type { Requirement, ResourceServer } from '../resource-server.js';

/** The context variables `requireToken` sets, for `new Hono<TokenVariables>()`. */
export interface TokenVariables {
  Variables: { accessToken: AccessToken };
}

/**
 * Lets a request through when its token passes `server.verify` (with the route's `scopes`), with
 * the token as `c.get('accessToken')`; answers the challenge otherwise.
 * `app.get('/things', requireToken(server, { scopes: ['things:read'] }), handler)`.
 */
export function requireToken(
  server: ResourceServer,
  requirement?: Requirement,
): MiddlewareHandler<TokenVariables> {
  return async (c, next) => {
    const verdict = await server.verify(c.req.raw, requirement);
    if (!verdict.ok) return new Response(verdict.body || null, verdict);
    c.set('accessToken', verdict.token);
    await next();
  };
}

/** Serves the RFC 9728 metadata: `app.get(server.metadataPath, metadataHandler(server))`. */
export function metadataHandler(server: ResourceServer): Handler {
  return (c) => c.json(server.metadata);
}
