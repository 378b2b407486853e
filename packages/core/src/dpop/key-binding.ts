import { OAuthError } from '../errors/oauth-error.js';
import type { Client } from '../realms/realm.js';

/**
 * The key a client's refresh tokens are bound to: a public client's proof key, since nothing else
 * stops a thief from using its refresh token; a confidential client authenticates, so its refresh
 * tokens stay unbound (RFC 9449 §5) and the client may change keys.
 */
export function refreshTokenKey(client: Client, dpopJkt: string | undefined): string | undefined {
  return client.config.token_endpoint_auth_method === 'none' ? dpopJkt : undefined;
}

/**
 * A code issued for a `dpop_jkt` (RFC 9449 §10) or a bound refresh token is only redeemed with a
 * proof by that key; checked before the code or token counts as used, so a thief cannot spend it.
 */
export function checkBoundKey(
  bound: string | undefined,
  dpopJkt: string | undefined,
  what: 'code' | 'refresh token',
): void {
  if (bound !== undefined && bound !== dpopJkt) {
    throw new OAuthError(
      'invalid_grant',
      `the ${what} is bound to a DPoP key this request has no proof by`,
    );
  }
}
