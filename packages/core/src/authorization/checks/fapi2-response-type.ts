import { isFapi2 } from '../../config/fapi2.js';
import { redirected } from '../authorization-error.js';
import { need, type RequestState } from './check.js';

/**
 * FAPI 2.0 Security Profile §5.3.2.2-1: a fapi2 realm answers `response_type=code` only, never an
 * implicit or hybrid response that would put tokens in the browser's address bar.
 */
export function requireFapi2ResponseType({ context, found }: RequestState): void {
  if (!isFapi2(context.realm.config)) return;
  if (need(found, 'responseType') !== 'code') {
    throw redirected('unsupported_response_type', 'this realm answers response_type=code only');
  }
}
