import type { Client, Realm } from '../realms/realm.js';
import type { GatehouseRequest, GatehouseResponse } from './types.js';

/*
 * Who may read an endpoint's answers from a browser script (CORS), as the standalone server's
 * contract has it ("Browser-based clients"): the origins the realm's clients are allowed
 * (`allowed_origins`, by default the origins of their redirect URIs). An answer for a known
 * client is readable by that client's origins only; discovery, the JWKS, a preflight (which
 * carries no client_id) and an error answered before the client is known, by the origins of any
 * client of the realm. Registration and the client configuration endpoint (RFC 7591, 7592) answer
 * any origin: a client registers before it has one, and a bearer token, never a cookie, is what
 * they trust. Endpoints without CORS (authorization, introspection, logout) never answer it.
 */

/** Which origins may read an answer. */
export interface Origins {
  has(origin: string): boolean;
}

/** Every origin. */
export const ANY_ORIGIN: Origins = { has: () => true };

/** The request headers a client may send: credentials, a form body, a DPoP proof (RFC 9449). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
/** Challenges must be readable by the script that failed to authenticate, and DPoP nonces by the next proof. */
const EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce';
/** Seconds a browser may reuse a preflight answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = '600';

/** The answer to an `OPTIONS` preflight. No credentials mode: nothing here uses cookies. */
export function preflightResponse(
  request: GatehouseRequest,
  methods: readonly string[],
  origins: Origins,
): GatehouseResponse {
  const origin = request.headers.origin;
  if (origin === undefined || !origins.has(origin)) {
    return { status: 204, headers: { vary: 'Origin' } };
  }
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': methods.filter((method) => method !== 'OPTIONS').join(', '),
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      vary: 'Origin',
    },
  };
}

/** An answer for `client`: readable by the client's own origins. */
export const withClientCors = (
  response: GatehouseResponse,
  request: GatehouseRequest,
  client: Client | undefined,
): GatehouseResponse => withCors(response, request, client?.allowedOrigins ?? NO_ORIGINS);

/** An answer for no client in particular: readable by the origins of every client of the realm. */
export const withRealmCors = (
  response: GatehouseResponse,
  request: GatehouseRequest,
  realm: Realm,
): GatehouseResponse => withCors(response, request, realm.corsOrigins);

/** An answer readable from any origin. */
export const withAnyOriginCors = (
  response: GatehouseResponse,
  request: GatehouseRequest,
): GatehouseResponse => withCors(response, request, ANY_ORIGIN);

const NO_ORIGINS: ReadonlySet<string> = new Set();

/**
 * `response` with the CORS headers its request's origin may have. A request without `Origin`
 * (every server-side client) gets the response untouched: a cacheable answer (discovery, JWKS)
 * says `Vary: Origin` itself, and the others are `no-store`, so no cached copy needs telling apart.
 */
function withCors(
  response: GatehouseResponse,
  request: GatehouseRequest,
  origins: Origins,
): GatehouseResponse {
  const origin = request.headers.origin;
  if (origin === undefined) return response;
  const headers = { ...response.headers, vary: withOrigin(response.headers.vary) };
  if (!origins.has(origin)) return { ...response, headers };
  return {
    ...response,
    headers: {
      ...headers,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': EXPOSED_HEADERS,
    },
  };
}

function withOrigin(vary: string | undefined): string {
  if (vary === undefined) return 'Origin';
  return /(^|,)\s*origin\s*(,|$)/i.test(vary) ? vary : `${vary}, Origin`;
}
