import type { RedirectedCode } from '../../errors/codes.js';
import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/** OIDC Core 1.0 §6 and §7.2.1: features requested that Gatehouse does not offer. */
const UNSUPPORTED = new Map<string, RedirectedCode>([
  ['request', 'request_not_supported'],
  ['request_uri', 'request_uri_not_supported'],
  ['registration', 'registration_not_supported'],
]);

/** OIDC Core 1.0 §3.1.2.6: a request that uses a feature this realm does not offer is refused. */
export function rejectUnsupported({ params }: RequestState): void {
  for (const [name, code] of UNSUPPORTED) {
    if (params.has(name)) throw redirected(code, `the ${name} parameter is not supported`);
  }
}
