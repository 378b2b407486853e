import { RESPONSE_MODES } from '../../config/client.js';
import { redirected } from '../authorization-error.js';
import type { ResponseMode } from '../request.js';
import { carriesTokens, defaultResponseMode } from '../response-type.js';
import { need, type RequestState } from './check.js';

const RESPONSE_MODE_NAMES = new Set<string>(RESPONSE_MODES);

/**
 * OAuth 2.0 Multiple Response Type Encoding Practices §2.1 and §5, and Form Post Response Mode: a
 * mode the client is registered for, else the response type's default; never the query string
 * for a response that carries tokens.
 */
export function checkResponseMode({ params, client, found }: RequestState): void {
  const type = need(found, 'responseType');
  const requested = params.get('response_mode');
  if (requested === undefined) {
    found.responseMode = defaultResponseMode(type);
    return;
  }
  if (
    !RESPONSE_MODE_NAMES.has(requested) ||
    !client.config.response_modes.includes(requested as ResponseMode)
  ) {
    throw redirected('invalid_response_mode', 'response_mode is not allowed for this client');
  }
  if (requested === 'query' && carriesTokens(type)) {
    throw redirected('invalid_response_mode', 'tokens are never returned in the query string');
  }
  found.responseMode = requested as ResponseMode;
}
