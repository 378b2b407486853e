import type { ServerResponse } from 'node:http';
import {
  type GatehouseRequest,
  type GatehouseResponse,
  isFormUrlEncoded,
  joinHeaderValues,
  type Provider,
  payloadTooLargeResponse,
} from '@gatehouse/core';
import type { Request, RequestHandler } from 'express';
import { bodyUnavailableResponse, formFromParsedBody } from './parsed-form.js';
import { readBody, TOO_LARGE } from './read-body.js';

/**
 * Mounts Gatehouse in an Express app: `app.use('/auth', gatehouse(provider))`. Gatehouse answers
 * every request below the mount path; the app's other routes are untouched.
 */
export function gatehouse(provider: Provider): RequestHandler {
  return (req, res, next) => {
    // Errors (even from writing, when the app answered first) go to Express, never unhandled.
    answer(provider, req)
      .then((response) => send(res, response))
      .catch(next);
  };
}

async function answer(provider: Provider, req: Request): Promise<GatehouseResponse> {
  if (Number(req.headers['content-length']) > provider.maxBodyBytes)
    return payloadTooLargeResponse();
  const exchange = requestLine(req);
  if (req.body !== undefined) {
    // A parser of the host application consumed the stream before Gatehouse saw it.
    if (req.body instanceof Uint8Array || typeof req.body === 'string') {
      return provider.handle({ ...exchange, body: req.body });
    }
    if (!isFormUrlEncoded(req.headers['content-type'])) return provider.handle(exchange);
    const form = formFromParsedBody(req.body);
    return form
      ? provider.handle({ ...exchange, form })
      : bodyUnavailableResponse('was parsed into nested values by the application');
  }
  if (req.method === 'GET' || req.method === 'HEAD') return provider.handle(exchange);
  if (req.readableEnded) return bodyUnavailableResponse('was already read by the application');
  const body = await readBody(req, provider.maxBodyBytes);
  return body === TOO_LARGE ? payloadTooLargeResponse() : provider.handle({ ...exchange, body });
}

/** Method, path below the mount point (Express strips it from `req.url`), query and headers. */
function requestLine(req: Request): GatehouseRequest {
  const queryAt = req.url.indexOf('?');
  return {
    method: req.method,
    path: queryAt === -1 ? req.url : req.url.slice(0, queryAt),
    query: queryAt === -1 ? '' : req.url.slice(queryAt + 1),
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
