import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';

/** The one client, secret and resource every benchmarked server is configured with. */
export const BENCH_CLIENT_ID = 'bench-client';
export const BENCH_CLIENT_SECRET = 'bench-secret-0123456789abcdef';
export const BENCH_RESOURCE = 'https://api.example.com';
export const BENCH_SCOPE = 'api:read';

/** The request every server answers under load: client_credentials with client_secret_post. */
export const TOKEN_REQUEST_BODY = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: BENCH_CLIENT_ID,
  client_secret: BENCH_CLIENT_SECRET,
  resource: BENCH_RESOURCE,
  scope: BENCH_SCOPE,
}).toString();
export const TOKEN_REQUEST_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
} as const;

/** Where a server answers, and where its signing keys are when it issues JWTs. */
export interface TokenEndpoint {
  readonly baseUrl: string;
  readonly tokenPath: string;
  /** Set for servers that issue ES256 JWT access tokens verifiable against this JWKS. */
  readonly jwksPath?: string;
}

export interface CheckedToken {
  readonly accessToken: string;
  readonly tokenType: string;
}

/**
 * Sends one token request and fails unless it got a 200 with an access token — and, for servers
 * that issue JWTs, one that verifies with ES256 against the server's JWKS. Run before measuring,
 * so a benchmark of error responses cannot happen.
 */
export async function checkTokenEndpoint(endpoint: TokenEndpoint): Promise<CheckedToken> {
  const response = await fetch(`${endpoint.baseUrl}${endpoint.tokenPath}`, {
    method: 'POST',
    headers: TOKEN_REQUEST_HEADERS,
    body: TOKEN_REQUEST_BODY,
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`token request answered ${response.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { access_token?: unknown; token_type?: unknown };
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    throw new Error(`token response has no access_token: ${text.slice(0, 300)}`);
  }
  if (endpoint.jwksPath !== undefined)
    await verifyAccessToken(endpoint.baseUrl + endpoint.jwksPath, body.access_token);
  return { accessToken: body.access_token, tokenType: String(body.token_type) };
}

async function verifyAccessToken(jwksUrl: string, token: string): Promise<void> {
  const { alg } = decodeProtectedHeader(token);
  if (alg !== 'ES256') throw new Error(`access token is signed with ${alg}, not ES256`);
  const jwks = (await (await fetch(jwksUrl)).json()) as JSONWebKeySet;
  await jwtVerify(token, createLocalJWKSet(jwks), {
    algorithms: ['ES256'],
    audience: BENCH_RESOURCE,
  });
}
