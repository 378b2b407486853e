import type { Provider } from '@gatehouse-oidc/core';
import {
  BODY_TOO_LARGE,
  bodyLimit,
  type GatehouseRequest,
  type GatehouseResponse,
  payloadTooLargeResponse,
  readBodyStream,
  WELL_KNOWN_ROOTS,
  wellKnownRequest,
} from '@gatehouse-oidc/core/adapter';
import { type Context, Hono } from 'hono';
import { basePath } from 'hono/route';

/**
 * Gatehouse as a Hono app, to mount next to your own routes: `app.route('/auth', gatehouse(provider))`.
 * It answers every request below the mount path and runs on any runtime Hono runs on.
 */
export function gatehouse(provider: Provider): Hono {
  const app = new Hono();
  app.all('*', async (c) =>
    toResponse(await answer(provider, c, requestLine(c.req.raw, basePath(c).replace(/\/$/, '')))),
  );
  return app;
}

/**
 * Answers, at the host's root, the paths where clients look for a realm's metadata by RFC 8414
 * path insertion (`/.well-known/oauth-authorization-server/{issuer path}`, and the same with
 * `openid-configuration`), which a provider mounted below a prefix cannot reach:
 * `app.route('/', gatehouseWellKnown(provider))`.
 */
export function gatehouseWellKnown(provider: Provider): Hono {
  const app = new Hono();
  const handler = async (c: Context) =>
    toResponse(await answer(provider, c, wellKnownRequest(provider, requestLine(c.req.raw, ''))));
  for (const root of WELL_KNOWN_ROOTS) {
    app.all(root, handler);
    app.all(`${root}/*`, handler);
  }
  return app;
}

async function answer(
  provider: Provider,
  c: Context,
  exchange: GatehouseRequest,
): Promise<GatehouseResponse> {
  const request = c.req.raw;
  const limit = bodyLimit(provider);
  if (Number(request.headers.get('content-length')) > limit) return payloadTooLargeResponse();
  if (!request.body) return provider.handle(exchange);
  const body = await readBodyStream(request.body, limit);
  return body === BODY_TOO_LARGE
    ? payloadTooLargeResponse()
    : provider.handle({ ...exchange, body });
}

/**
 * Taken from the raw URL so the path is not percent-decoded on the way to the core; `mount` is
 * where the app was mounted (`app.route('/auth', …)`), without a trailing slash.
 */
function requestLine(request: Request, mount: string): GatehouseRequest {
  const url = request.url;
  const pathAt = url.indexOf('/', url.indexOf('//') + 2);
  const queryAt = url.indexOf('?', pathAt);
  const pathname = queryAt === -1 ? url.slice(pathAt) : url.slice(pathAt, queryAt);
  return {
    method: request.method,
    path: pathname.slice(mount.length) || '/',
    query: queryAt === -1 ? '' : url.slice(queryAt + 1),
    headers: Object.fromEntries(request.headers),
  };
}

function toResponse(response: GatehouseResponse): Response {
  const headers = new Headers(response.headers);
  for (const cookie of response.cookies ?? []) headers.append('set-cookie', cookie);
  return new Response(response.body ?? null, { status: response.status, headers });
}
