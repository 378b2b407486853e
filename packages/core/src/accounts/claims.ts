/**
 * Which claims each scope releases: OpenID Connect Core §5.4 for profile, email, address and
 * phone; `id` releases the identity-verification claims of OpenID Connect for Identity Assurance
 * (docs/decisions.md).
 */
export const SCOPE_CLAIMS: ReadonlyMap<string, readonly string[]> = new Map([
  [
    'profile',
    [
      'name',
      'family_name',
      'given_name',
      'middle_name',
      'nickname',
      'preferred_username',
      'profile',
      'picture',
      'website',
      'gender',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
    ],
  ],
  ['email', ['email', 'email_verified']],
  ['address', ['address']],
  ['phone', ['phone_number', 'phone_number_verified']],
  ['id', ['birthdate', 'place_of_birth', 'nationalities', 'verified_claims']],
]);

/** The account's claims that `scopes` release, in a fresh object (never `sub`: callers set it). */
export function claimsForScopes(
  claims: Readonly<Record<string, unknown>>,
  scopes: readonly string[],
): Record<string, unknown> {
  const released: Record<string, unknown> = {};
  for (const scope of scopes) {
    for (const name of SCOPE_CLAIMS.get(scope) ?? []) {
      if (Object.hasOwn(claims, name) && claims[name] !== undefined) released[name] = claims[name];
    }
  }
  return released;
}
