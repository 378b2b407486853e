import { createHash } from 'node:crypto';
import type { ClientInput } from '@gatehouse-oidc/core';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';

/** The machine client, secret and resource every benchmarked server is configured with. */
export const BENCH_CLIENT_ID = 'bench-client';
export const BENCH_CLIENT_SECRET = 'bench-secret-0123456789abcdef';

export const BENCH_RESOURCE = 'https://api.example.com';
export const BENCH_SCOPE = 'api:read';

/** The machine client of the client_credentials runs. */
export const BENCH_SERVICE_CLIENT = {
  client_id: BENCH_CLIENT_ID,
  client_secret: BENCH_CLIENT_SECRET,
  token_endpoint_auth_method: 'client_secret_post',
  application_type: 'web',
  grant_types: ['client_credentials'],
  scope: BENCH_SCOPE,
} as const satisfies ClientInput;

/** The resource server of BENCH_RESOURCE: a client only to be named by the resource. */
export const BENCH_API_CLIENT = {
  client_id: 'bench-api',
  client_secret: 'bench-api-secret-0123456789',
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: [],
  scope: BENCH_SCOPE,
} as const satisfies ClientInput;

/**
 * The web client of the browser sign-in scenarios, its user, and the authorization request every
 * code and refresh token is minted for: `openid` and the API scope, for the API resource, PKCE S256.
 */
export const BENCH_WEB_CLIENT_ID = 'bench-web';
export const BENCH_WEB_CLIENT_SECRET = 'bench-web-secret-0123456789abcdef';
export const BENCH_REDIRECT_URI = 'https://app.example.com/callback';
export const BENCH_USER = 'bench-user';
export const BENCH_USER_SCOPE = `openid ${BENCH_SCOPE}`;
export const BENCH_NONCE = 'bench-nonce-4f1c2a';
export const BENCH_CODE_VERIFIER = 'bench-code-verifier-0123456789-abcdefghijklmnopq';
export const BENCH_CODE_CHALLENGE = createHash('sha256')
  .update(BENCH_CODE_VERIFIER)
  .digest('base64url');

/**
 * The authorization request every code is minted for, or pushed (PAR) in the
 * par_authorization_code scenario: the web client's, for the API resource, PKCE S256.
 */
export const BENCH_AUTHORIZATION_REQUEST = {
  response_type: 'code',
  client_id: BENCH_WEB_CLIENT_ID,
  redirect_uri: BENCH_REDIRECT_URI,
  scope: BENCH_USER_SCOPE,
  resource: BENCH_RESOURCE,
  state: 'bench-state',
  nonce: BENCH_NONCE,
  code_challenge: BENCH_CODE_CHALLENGE,
  code_challenge_method: 'S256',
} as const;

export const TOKEN_REQUEST_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
} as const;

/** The benchmarked grants; the two user grants spend a one-time credential per request. */
export type GrantType = 'client_credentials' | UserGrantType;
export type UserGrantType = 'authorization_code' | 'refresh_token';

/**
 * What a server child mints for the web client before any load: one-time credentials of a user
 * grant, or ID tokens of the bench user to name them in CIBA requests (reusable).
 */
export type CredentialKind = UserGrantType | 'id_token_hint';

export const isUserGrant = (grant: GrantType): grant is UserGrantType =>
  grant !== 'client_credentials';

/** The client_credentials request with client_secret_post: the same body every time. */
export const TOKEN_REQUEST_BODY = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: BENCH_CLIENT_ID,
  client_secret: BENCH_CLIENT_SECRET,
  resource: BENCH_RESOURCE,
  scope: BENCH_SCOPE,
}).toString();

/**
 * The token request of `grant` spending `credential` (a code or a refresh token), with
 * client_secret_post. No `resource`: both servers use the one the grant was authorized for.
 */
export function tokenRequestBody(grant: GrantType, credential?: string): string {
  if (grant === 'client_credentials') return TOKEN_REQUEST_BODY;
  if (credential === undefined) throw new Error(`${grant} needs a credential`);
  const spent: Record<string, string> =
    grant === 'authorization_code'
      ? {
          code: credential,
          redirect_uri: BENCH_REDIRECT_URI,
          code_verifier: BENCH_CODE_VERIFIER,
        }
      : { refresh_token: credential };
  return new URLSearchParams({
    grant_type: grant,
    ...spent,
    client_id: BENCH_WEB_CLIENT_ID,
    client_secret: BENCH_WEB_CLIENT_SECRET,
  }).toString();
}

/** Where a server answers, and where its signing keys are when it issues JWTs. */
export interface TokenEndpoint {
  readonly baseUrl: string;
  readonly tokenPath: string;
  /** Set for servers that issue ES256 JWT access tokens verifiable against this JWKS. */
  readonly jwksPath?: string;
  /** The CIBA backchannel authentication endpoint (`{issuer}/bc-authorize`), where there is one. */
  readonly backchannelPath?: string;
  /** The pushed authorization request endpoint (RFC 9126), where there is one. */
  readonly parPath?: string;
  /**
   * The token endpoint's URL as the server names it from its configured issuer — what a DPoP
   * proof's `htu` must be — where that is not `baseUrl + tokenPath` (ours is configured with a
   * portless base URL behind which it listens on a random port).
   */
  readonly issuerTokenUrl?: string;
  /**
   * Set for the ceiling (the bare route): a fixed JSON for every request of every scenario, no
   * token to verify and no credential to mint.
   */
  readonly fixedAnswers?: true;
}

export interface CheckedToken {
  readonly accessToken: string;
  readonly tokenType: string;
  /** User grants only. */
  readonly idToken?: string;
  readonly refreshToken?: string;
}

/**
 * Sends one token request (with `headers` beside the form's) and fails unless it got a 200 with
 * an access token — and, for servers that issue JWTs, one that verifies with ES256 against the
 * server's JWKS. For the user grants
 * the answer must also carry an ES256 ID token for the web client and its user (with the
 * authorization's nonce after a code) and a new refresh token. Run before measuring, so a
 * benchmark of error responses (or of less work than asked) cannot happen.
 */
export async function checkTokenEndpoint(
  endpoint: TokenEndpoint,
  grant: GrantType = 'client_credentials',
  credential?: string,
  headers: Record<string, string> = {},
): Promise<CheckedToken> {
  const body = tokenRequestBody(grant, credential);
  const { status, text } = await postToken(endpoint, body, headers);
  if (status !== 200) throw new Error(`token request answered ${status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as Record<string, unknown>;
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new Error(`token response has no access_token: ${text.slice(0, 300)}`);
  }
  const keys = endpoint.jwksPath === undefined ? undefined : await jwks(endpoint);
  if (keys) await verifyEs256('access token', keys, accessToken, { audience: BENCH_RESOURCE });
  const checked = { accessToken, tokenType: String(answer.token_type) };
  if (!isUserGrant(grant)) return checked;

  if (!keys) throw new Error(`${grant} is only benchmarked on servers that publish a JWKS`);
  const { id_token: idToken, refresh_token: refreshToken } = answer;
  if (typeof idToken !== 'string') throw new Error(`token response has no id_token: ${text}`);
  const claims = await verifyEs256('id_token', keys, idToken, {
    audience: BENCH_WEB_CLIENT_ID,
    subject: BENCH_USER,
  });
  if (grant === 'authorization_code' && claims.nonce !== BENCH_NONCE) {
    throw new Error(`the id_token carries nonce ${String(claims.nonce)}, not the request's`);
  }
  if (typeof refreshToken !== 'string' || refreshToken === '' || refreshToken === credential) {
    throw new Error(`token response has no new refresh_token: ${text.slice(0, 300)}`);
  }
  return { ...checked, idToken, refreshToken };
}

/**
 * Presents a credential that was already spent and fails unless the server refuses it with
 * invalid_grant: codes are one-time and refresh tokens rotate, on both servers alike. Both then
 * revoke the grant, so the tokens the first use gave are dead too.
 */
export async function checkSpent(
  endpoint: TokenEndpoint,
  grant: UserGrantType,
  credential: string,
): Promise<void> {
  const { status, text } = await postToken(endpoint, tokenRequestBody(grant, credential));
  if (status !== 400 || JSON.parse(text).error !== 'invalid_grant') {
    throw new Error(`a spent ${grant} credential answered ${status}, not invalid_grant: ${text}`);
  }
}

/** POSTs an urlencoded form (a token request, a CIBA initiation) and reads the answer. */
export async function postForm(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...TOKEN_REQUEST_HEADERS, ...headers },
    body,
  });
  return { status: response.status, text: await response.text() };
}

const postToken = (endpoint: TokenEndpoint, body: string, headers?: Record<string, string>) =>
  postForm(endpoint.baseUrl + endpoint.tokenPath, body, headers);

async function jwks(endpoint: TokenEndpoint & { jwksPath?: string }) {
  const keys = (await (await fetch(endpoint.baseUrl + endpoint.jwksPath)).json()) as JSONWebKeySet;
  return createLocalJWKSet(keys);
}

async function verifyEs256(
  label: string,
  keys: ReturnType<typeof createLocalJWKSet>,
  token: string,
  expected: { audience: string; subject?: string },
) {
  const { alg } = decodeProtectedHeader(token);
  if (alg !== 'ES256') {
    throw new Error(`${label} is signed with ${alg}, not ES256`);
  }
  const { payload } = await jwtVerify(token, keys, { algorithms: ['ES256'], ...expected });
  return payload;
}
