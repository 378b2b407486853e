/** Keys whose values the admin API never shows, wherever they appear in a realm object. */
const SECRET_KEYS = new Set([
  'client_secret',
  'previous_client_secret',
  'password',
  'password_hash',
  'initial_access_token',
]);

/** A copy of a realm or client object without any secret or password hash in it. */
export function withoutSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSecrets) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEYS.has(key))
      .map(([key, child]) => [key, withoutSecrets(child)]),
  ) as T;
}
