import type { ServerResponse } from 'node:http';
import type { Provider } from '@gatehouse-oidc/core';
import {
  BODY_TOO_LARGE,
  bodyLimit,
  type GatehouseRequest,
  type GatehouseResponse,
  isFormUrlEncoded,
  isJson,
  joinHeaderValues,
  payloadTooLargeResponse,
  WELL_KNOWN_ROOTS,
  wellKnownRequest,
} from '@gatehouse-oidc/core/adapter';
import type { Request, RequestHandler } from 'express';
import { bodyUnavailableResponse, formFromParsedBody } from './parsed-form.js';
import { readBody } from './read-body.js';

/**
 * Mounts Gatehouse in an Express app: `app.use('/auth', gatehouse(provider))`. Gatehouse answers
 * every request below the mount path; the app's other routes are untouched.
 */
export function gatehouse(provider: Provider): RequestHandler {
  return (req, res, next) => {
    // Errors (even from writing, when the app answered first) go to Express, never unhandled.
    answer(provider, req, requestLine(req, req.url))
      .then((response) => send(res, response))
      .catch(next);
  };
}

/**
 * Answers, at the host's root, the paths where clients look for a realm's metadata by RFC 8414
 * path insertion (`/.well-known/oauth-authorization-server/{issuer path}`, and the same with
 * `openid-configuration`), which a provider mounted below a prefix cannot reach: mount it with
 * `app.use(gatehouseWellKnown(provider))`. Every other request goes on to the app's next route.
 */
export function gatehouseWellKnown(provider: Provider): RequestHandler {
  return (req, res, next) => {
    const line = requestLine(req, req.originalUrl);
    if (!WELL_KNOWN_ROOTS.some((root) => line.path === root || line.path.startsWith(`${root}/`))) {
      next();
      return;
    }
    answer(provider, req, wellKnownRequest(provider, line))
      .then((response) => send(res, response))
      .catch(next);
  };
}

async function answer(
  provider: Provider,
  req: Request,
  exchange: GatehouseRequest,
): Promise<GatehouseResponse> {
  const limit = bodyLimit(provider);
  if (Number(req.headers['content-length']) > limit) return payloadTooLargeResponse();
  if (req.readableDidRead || req.readableEnded) return answerReadBody(provider, exchange, req);
  if (req.method === 'GET' || req.method === 'HEAD') return provider.handle(exchange);
  const body = await readBody(req, limit);
  return body === BODY_TOO_LARGE
    ? payloadTooLargeResponse()
    : provider.handle({ ...exchange, body });
}

/** A middleware of the host application consumed the stream before Gatehouse saw it. */
function answerReadBody(
  provider: Provider,
  exchange: GatehouseRequest,
  req: Request,
): Promise<GatehouseResponse> | GatehouseResponse {
  const parsed: unknown = req.body;
  if (parsed instanceof Uint8Array || typeof parsed === 'string') {
    return provider.handle({ ...exchange, body: parsed });
  }
  if (!holdsParsedBody(req)) {
    return req.method === 'GET' || req.method === 'HEAD'
      ? provider.handle(exchange)
      : bodyUnavailableResponse('was already read by the application');
  }
  // express.json() parsed a registration request (RFC 7591): the same JSON, written again.
  if (isJson(req.headers['content-type'])) {
    return provider.handle({ ...exchange, body: JSON.stringify(parsed) });
  }
  if (!isFormUrlEncoded(req.headers['content-type'])) return provider.handle(exchange);
  const form = formFromParsedBody(parsed);
  return form
    ? provider.handle({ ...exchange, form })
    : bodyUnavailableResponse('was parsed into nested values by the application');
}

/**
 * Whether `req.body` is what a parser made of the body. Express 4's parsers (body-parser 1) set
 * `req.body = {}` on every request they pass by, parsed or not, and mark one they parsed with
 * `_body`; Express 5's leave `req.body` alone unless they parse.
 */
function holdsParsedBody(req: Request & { _body?: boolean }): boolean {
  const parsed: unknown = req.body;
  if (parsed === undefined) return false;
  if (typeof parsed !== 'object' || parsed === null || Object.keys(parsed).length > 0) return true;
  return req._body === true || req.headers['content-length'] === '0';
}

/**
 * Method, path, query and headers; the path of `url`: `req.url` is below the mount point (Express
 * strips it), `req.originalUrl` from the host's root.
 */
function requestLine(req: Request, url: string): GatehouseRequest {
  const queryAt = url.indexOf('?');
  return {
    method: req.method,
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    query: queryAt === -1 ? '' : url.slice(queryAt + 1),
    headers: joinHeaderValues(req.headers),
  };
}

/** Written with Node's own API so Express adds no ETag, 304 or content-type of its own. */
function send(res: ServerResponse, response: GatehouseResponse): void {
  // Another middleware (a timeout, say) may have answered while Gatehouse was working.
  if (res.headersSent) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.cookies) res.setHeader('set-cookie', [...response.cookies]);
  res.end(response.body);
}
