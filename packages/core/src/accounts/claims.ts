/**
 * Which claims each scope releases: OIDC Core 1.0 §5.4 for profile, email, address and
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

/** The account's claims named in `names`, in a fresh object (absent ones are left out). */
export function pickClaims(
  claims: Readonly<Record<string, unknown>>,
  names: readonly string[],
): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) {
    if (Object.hasOwn(claims, name) && claims[name] !== undefined) picked[name] = claims[name];
  }
  return picked;
}

/** The first of `scopes` that releases the claim `name`, or undefined when none does. */
export function scopeReleasing(name: string, scopes: ReadonlySet<string>): string | undefined {
  for (const [scope, names] of SCOPE_CLAIMS) {
    if (scopes.has(scope) && names.includes(name)) return scope;
  }
  return undefined;
}
