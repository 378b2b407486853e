import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * The most an authorization request may take as stored (its JSON): what each of the bounded
 * number of interactions a realm keeps costs at worst. Escaped characters count as stored, so a
 * state of control characters cannot weigh six times its length.
 */
export const MAX_STORED_REQUEST_CHARS = 4096;

/** docs/interface.md §7.2: a request too large to keep with its interaction is refused whole. */
export function checkStoredSize({ found }: RequestState): void {
  if (JSON.stringify(found).length > MAX_STORED_REQUEST_CHARS) {
    throw redirected(
      'invalid_request',
      `the request is too large to keep: state, nonce and the other parameters take more than ${MAX_STORED_REQUEST_CHARS} characters together`,
    );
  }
}
