import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

/** RFC 9126 §2.1: a pushed request must not itself reference another by request_uri. */
export function rejectRequestUri({ params }: RequestState): void {
  if (params.has('request_uri')) {
    throw new OAuthError('invalid_request', 'request_uri must not be pushed');
  }
}
