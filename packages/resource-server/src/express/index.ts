/**
 * `@gatehouse-oidc/resource-server/express`: the kit as Express (4 or 5) middleware. The verified
 * token is `req.accessToken` in the routes behind it.
 */
import type { RequestHandler } from 'express';
import type { AccessToken } from '../access-token.js';
import { nodeHeaders } from '../node-headers.js';
import type { Requirement, ResourceServer } from '../resource-server.js';

declare global {
  namespace Express {
    interface Request {
      /** The access token `requireToken` verified. */
      accessToken?: AccessToken;
    }
  }
}

/**
 * Lets a request through when its token passes `server.verify` (with the route's `scopes`), with
 * the token as `req.accessToken`; answers the challenge otherwise.
 * `app.get('/things', requireToken(server, { scopes: ['things:read'] }), handler)`.
 */
export function requireToken(server: ResourceServer, requirement?: Requirement): RequestHandler {
  return (req, res, next) => {
    const request = { method: req.method, url: req.originalUrl, headers: nodeHeaders(req.headers) };
    server
      .verify(request, requirement)
      .then((verdict) => {
        if (verdict.ok) {
          req.accessToken = verdict.token;
          next();
        } else {
          res.status(verdict.status).set(verdict.headers).send(verdict.body);
        }
      })
      .catch(next);
  };
}

/** Serves the RFC 9728 metadata: `app.get(server.metadataPath, metadataHandler(server))`. */
export function metadataHandler(server: ResourceServer): RequestHandler {
  return (_req, res) => {
    res.json(server.metadata);
  };
}
