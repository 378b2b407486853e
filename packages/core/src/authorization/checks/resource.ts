import { checkScopesCoverResource, requestedResource } from '../../grant-types/resource.js';
import { need, type RequestState, redirectedOnError } from './check.js';

/**
 * RFC 8707 §2: the `resource` must be one of the realm's, and the scopes must cover it;
 * docs/interface.md §7.2 names invalid_request for both.
 */
export function checkResource({ params, context, found }: RequestState): void {
  const uri = params.get('resource');
  if (uri === undefined) return;
  const scopes = need(found, 'scopes');
  redirectedOnError(
    () => checkScopesCoverResource(scopes, requestedResource(uri, context.realm)),
    'invalid_request',
  );
  found.resource = uri;
}
