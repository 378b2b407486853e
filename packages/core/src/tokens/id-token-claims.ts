import { claimsForScopes, pickClaims } from '../accounts/claims.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import type { Client } from '../realms/realm.js';

/** The claims a client asked for by name that come from the account (`acr` comes from the login). */
function requestedUserClaims(grant: TokenFamily, withAccessToken: boolean): string[] {
  const claims = grant.claims;
  if (!claims) return [];
  const names = withAccessToken ? claims.id_token : [...claims.id_token, ...claims.userinfo];
  return names.filter((name) => name !== 'acr');
}

/**
 * Whether an ID token carries claims of the user, so the account must be read: when no access
 * token is issued to call userinfo with (OIDC Core 1.0 §5.4), when the client has
 * `claims_in_id_token`, or when claims were asked for by name for the ID token (§5.5).
 */
export function idTokenHasUserClaims(
  grant: TokenFamily,
  client: Client | undefined,
  withAccessToken: boolean,
): boolean {
  return (
    !withAccessToken ||
    client?.config.claims_in_id_token === true ||
    requestedUserClaims(grant, withAccessToken).length > 0
  );
}

/** The user's claims an ID token carries (see idTokenHasUserClaims), from the account's. */
export function idTokenUserClaims(
  accountClaims: Readonly<Record<string, unknown>>,
  grant: TokenFamily,
  client: Client | undefined,
  scopes: readonly string[],
  withAccessToken: boolean,
): Record<string, unknown> {
  const byScope =
    !withAccessToken || client?.config.claims_in_id_token === true
      ? claimsForScopes(accountClaims, scopes)
      : {};
  return { ...byScope, ...pickClaims(accountClaims, requestedUserClaims(grant, withAccessToken)) };
}
