import { isFapi2 } from '../../config/fapi2.js';
import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * RFC 9126 §5 and §6: a realm or a client with require_pushed_authorization_requests takes only
 * requests pushed to its PAR endpoint first; so does a fapi2 realm (FAPI 2.0 SP §5.3.2.2-2).
 */
export function requirePushed({ context, client, pushed }: RequestState): void {
  const required =
    isFapi2(context.realm.config) ||
    context.realm.config.require_pushed_authorization_requests ||
    client.config.require_pushed_authorization_requests;
  if (required && !pushed) {
    throw redirected(
      'invalid_request',
      'authorization requests of this client must be pushed to the pushed_authorization_request_endpoint first',
    );
  }
}
