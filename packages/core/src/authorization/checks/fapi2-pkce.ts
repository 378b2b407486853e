import { isFapi2 } from '../../config/fapi2.js';
import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * FAPI 2.0 Security Profile §5.3.2.2-5: in a fapi2 realm every request carries an S256
 * code_challenge, whatever its client says of itself (a registered client, a metadata document).
 * Runs after `pkce`, which reads and checks the challenge.
 */
export function requireFapi2Pkce({ context, found }: RequestState): void {
  if (isFapi2(context.realm.config) && found.codeChallenge === undefined) {
    throw redirected('invalid_request', 'code_challenge is required in this realm');
  }
}
