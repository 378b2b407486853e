import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * RFC 6749 §3.1: request and response parameters must not be included more than once. (A repeated
 * client_id or redirect_uri never gets this far: the target is not trusted.)
 */
export function rejectRepeated({ params }: RequestState): void {
  if (params.repeated.size > 0) throw redirected('invalid_request', 'a parameter is repeated');
}
