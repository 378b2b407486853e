import type { AccessTokenClaims } from './access-token.js';
import { type FetchLimits, fetchBounded, jsonObjectOf } from './bounded-fetch.js';
import { ExpiringMap } from './expiring-map.js';
import { TokenError, UpstreamError } from './token-error.js';
import { tokenHash } from './token-hash.js';

/** Opaque tokens, checked by asking the authorization server (RFC 7662). */
export interface IntrospectionOptions {
  /** The introspection endpoint; read from the issuer's metadata when not given. */
  endpoint?: string;
  /** The resource's own client at the authorization server. */
  clientId: string;
  clientSecret: string;
  /** How the client authenticates (RFC 6749 §2.3.1); `client_secret_basic` by default. */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /**
   * Introspect JWTs too, rather than verify them here: slower, but a revoked token stops working
   * at once. Off by default: only tokens that are not JWTs are introspected.
   */
  jwts?: boolean;
  /**
   * Remember active answers, under the token's SHA-256, for at most `maxAgeSeconds` (and never
   * past the token's `exp`): a revoked token may then work that long. Off by default.
   */
  cache?: { maxEntries?: number; maxAgeSeconds?: number };
}

/** How introspection answers are checked. */
export interface IntrospectionRules {
  endpoint: () => Promise<string>;
  clientId: string;
  clientSecret: string;
  authMethod: 'client_secret_basic' | 'client_secret_post';
  issuer: string;
  audience: string;
  clockToleranceSeconds: number;
  limits: FetchLimits;
  fetch: typeof fetch;
  now: () => number;
}

/**
 * Returns the function that introspects a token: a POST of `token` with the client's credentials;
 * an answer with `active` true whose `aud` names the resource, whose `iss` (when given) is the
 * issuer and whose `exp` (when given) has not passed gives the token's claims. An inactive token
 * is `invalid_token`, whether answered 200 (RFC 7662) or 400 (Gatehouse's default); any other
 * answer is an UpstreamError.
 */
export function introspector(
  rules: IntrospectionRules,
  cache?: IntrospectionOptions['cache'],
): (token: string) => Promise<AccessTokenClaims> {
  if (!cache) return (token) => introspect(token, rules);
  const maxAgeMs = (cache.maxAgeSeconds ?? 60) * 1000;
  const answers = new ExpiringMap<AccessTokenClaims>(cache.maxEntries ?? 1000, rules.now);
  return async (token) => {
    const key = await tokenHash(token);
    const cached = answers.get(key);
    if (cached) return checkClaims(cached, rules);
    const claims = await introspect(token, rules);
    const expiresAt = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
    answers.set(key, claims, Math.min(rules.now() + maxAgeMs, expiresAt));
    return claims;
  };
}

async function introspect(token: string, rules: IntrospectionRules): Promise<AccessTokenClaims> {
  const endpoint = await rules.endpoint();
  const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (rules.authMethod === 'client_secret_post') {
    form.set('client_id', rules.clientId);
    form.set('client_secret', rules.clientSecret);
  } else {
    headers.authorization = basicCredentials(rules.clientId, rules.clientSecret);
  }
  const what = `the introspection endpoint ${endpoint}`;
  const init = { method: 'POST', headers, body: form.toString() };
  const answer = await fetchBounded(rules.fetch, what, endpoint, init, rules.limits);
  if (answer.status !== 200 && answer.status !== 400) {
    throw new UpstreamError(`${what} answered HTTP ${answer.status}`);
  }
  const claims = jsonObjectOf(answer, what) as AccessTokenClaims;
  if (claims.active === false) throw new TokenError('invalid_token', 'the token is not active');
  if (answer.status !== 200 || claims.active !== true) {
    throw new UpstreamError(`${what} answered HTTP ${answer.status} without "active"`);
  }
  return checkClaims(claims, rules);
}

/** RFC 7662 §4: the resource still checks what the answer says the token is for. */
function checkClaims(claims: AccessTokenClaims, rules: IntrospectionRules): AccessTokenClaims {
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
  if (!Array.isArray(audiences) || !audiences.includes(rules.audience)) {
    throw new TokenError('invalid_token', 'the token is not meant for this resource');
  }
  if (claims.iss !== undefined && claims.iss !== rules.issuer) {
    throw new TokenError('invalid_token', 'the token is from another issuer');
  }
  const now = rules.now() / 1000;
  if (typeof claims.exp === 'number' && claims.exp <= now - rules.clockToleranceSeconds) {
    throw new TokenError('invalid_token', 'the token has expired');
  }
  return claims;
}

/** RFC 6749 §2.3.1: each half form-urlencoded before the Base64. */
function basicCredentials(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}
