import { SCOPE_TOKEN } from '../config/primitives.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Client } from '../realms/realm.js';

/** Scopes that describe a signed-in user; meaningless in a grant without one. */
export const USER_SCOPES: ReadonlySet<string> = new Set([
  'openid',
  'profile',
  'email',
  'address',
  'id',
  'offline_access',
]);

/**
 * The scopes a request asks for (RFC 6749 §3.3): every one must be assigned to the client.
 * `fallback` applies when the request omits scope. Duplicates collapse, order is kept.
 */
export function requestedScopes(
  scope: string | undefined,
  client: Client,
  fallback: readonly string[],
): string[] {
  if (scope === undefined) return [...fallback];
  const tokens = scopeTokens(scope);
  if (!tokens.every((token) => client.scopes.has(token)))
    throw new OAuthError('invalid_scope', 'a requested scope is not assigned to this client');
  return tokens;
}

/** A `scope` parameter's tokens (RFC 6749 §3.3), duplicates collapsed, order kept. */
export function scopeTokens(scope: string): string[] {
  const tokens = [...new Set(scope.split(' '))];
  if (!tokens.every((token) => SCOPE_TOKEN.test(token))) {
    throw new OAuthError('invalid_scope', 'scope must be space-separated scope tokens');
  }
  return tokens;
}
