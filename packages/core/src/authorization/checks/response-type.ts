import { redirected } from '../authorization-error.js';
import { parseResponseType } from '../response-type.js';
import type { RequestState } from './check.js';

/**
 * RFC 6749 §3.1.1 and OAuth 2.0 Multiple Response Type Encoding Practices: response_type is
 * required, read in any order of its parts, and must be one the client is registered for.
 */
export function checkResponseType({ params, client, found }: RequestState): void {
  const value = params.get('response_type');
  if (value === undefined) throw redirected('invalid_request', 'response_type is required');
  const responseType = parseResponseType(value);
  if (responseType === undefined || !client.config.response_types.includes(responseType)) {
    throw redirected('invalid_response_type', 'response_type is not allowed for this client');
  }
  found.responseType = responseType;
}
