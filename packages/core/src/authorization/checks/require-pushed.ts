import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * RFC 9126 §5 and §6: a realm or a client with require_pushed_authorization_requests takes only
 * requests pushed to its PAR endpoint first.
 */
export function requirePushed({ context, client, pushed }: RequestState): void {
  const required =
    context.realm.config.require_pushed_authorization_requests ||
    client.config.require_pushed_authorization_requests;
  if (required && !pushed) {
    throw redirected(
      'invalid_request',
      'authorization requests of this client must be pushed to the pushed_authorization_request_endpoint first',
    );
  }
}
