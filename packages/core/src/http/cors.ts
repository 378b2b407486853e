import type { Client, Realm } from '../realms/realm.js';
import type { GatehouseRequest, GatehouseResponse } from './types.js';

/**
 * Who may read an endpoint's answers from a browser script (CORS):
 * - `public`: any origin. Discovery and the JWKS are public documents anyone can fetch from a
 *   server; `*` hides nothing, lets any page use them, and keeps one cached copy for every origin
 *   (no `Vary: Origin`).
 * - `clients`: the origins the realm's clients are allowed (`allowed_origins`, by default the
 *   origins of their redirect URIs). An answer for a known client is readable by that client's
 *   origins only; a preflight, which carries no client_id, and an error answered before the
 *   client is known, by the origins of any client of the realm.
 * Endpoints without a policy (authorization, introspection) never answer CORS.
 */
export type CorsPolicy = 'public' | 'clients';

/** The request headers a client may send: credentials, a form body, a DPoP proof (RFC 9449). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
/** Bearer and Basic challenges must be readable by the script that failed to authenticate. */
const EXPOSED_HEADERS = 'WWW-Authenticate';
/** Seconds a browser may reuse a preflight answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = '600';

/** The answer to an `OPTIONS` preflight. No credentials mode: nothing here uses cookies. */
export function preflightResponse(
  request: GatehouseRequest,
  policy: CorsPolicy,
  methods: readonly string[],
  realm: Realm,
): GatehouseResponse {
  const allowOrigin = allowedOrigin(request, policy, realm.corsOrigins);
  if (allowOrigin === undefined) return { status: 204, headers: { vary: 'Origin' } };
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': allowOrigin,
      'access-control-allow-methods': methods.filter((method) => method !== 'OPTIONS').join(', '),
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      ...(policy === 'public' ? {} : { vary: 'Origin' }),
    },
  };
}

/** An answer for `client`: readable by the client's own origins. */
export const withClientCors = (
  response: GatehouseResponse,
  request: GatehouseRequest,
  client: Client | undefined,
): GatehouseResponse => withCors(response, request, client?.allowedOrigins ?? NO_ORIGINS);

/** An answer of a `policy` endpoint before any client is known: an error, a missing token. */
export const withPolicyCors = (
  response: GatehouseResponse,
  request: GatehouseRequest,
  policy: CorsPolicy,
  realm: Realm,
): GatehouseResponse =>
  policy === 'public'
    ? withCors(response, request, 'any')
    : withCors(response, request, realm.corsOrigins);

const NO_ORIGINS: ReadonlySet<string> = new Set();

/**
 * `response` with the CORS headers its request's origin may have. A request without `Origin`
 * (every server-side client) gets the response untouched: none of these answers is cacheable
 * (`no-store`), so there is no cached copy a `Vary` would have to separate.
 */
function withCors(
  response: GatehouseResponse,
  request: GatehouseRequest,
  origins: ReadonlySet<string> | 'any',
): GatehouseResponse {
  const origin = request.headers.origin;
  if (origin === undefined) return response;
  const headers = { ...response.headers };
  if (origins === 'any') headers['access-control-allow-origin'] = '*';
  else {
    headers.vary = headers.vary ? `${headers.vary}, Origin` : 'Origin';
    if (!origins.has(origin)) return { ...response, headers };
    headers['access-control-allow-origin'] = origin;
  }
  headers['access-control-expose-headers'] = EXPOSED_HEADERS;
  return { ...response, headers };
}

function allowedOrigin(
  request: GatehouseRequest,
  policy: CorsPolicy,
  origins: ReadonlySet<string>,
): string | undefined {
  if (policy === 'public') return '*';
  const origin = request.headers.origin;
  return origin !== undefined && origins.has(origin) ? origin : undefined;
}
