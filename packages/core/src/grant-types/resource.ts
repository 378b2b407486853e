import type { ResourceConfig } from '../config/resource.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Realm } from '../realms/realm.js';

/** RFC 8707: the `resource` must be one of the realm's declared Protected Resources. */
export function requestedResource(
  resource: string | undefined,
  realm: Realm,
): ResourceConfig | undefined {
  if (resource === undefined) return undefined;
  const declared = realm.resources.get(resource);
  if (!declared)
    throw new OAuthError('invalid_target', 'resource is not a Protected Resource of this realm');
  return declared;
}

/** A token for a resource must carry at least one of the scopes that resource declares. */
export function checkScopesCoverResource(
  scopes: readonly string[],
  resource: ResourceConfig | undefined,
): void {
  if (!resource || resource.scopes.length === 0) return;
  if (!scopes.some((scope) => resource.scopes.includes(scope))) {
    throw new OAuthError('invalid_scope', 'the requested scopes are insufficient for the resource');
  }
}
