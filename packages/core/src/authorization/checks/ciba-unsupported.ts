import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

const UNSUPPORTED = ['login_hint', 'login_hint_token', 'user_code', 'request'];

/**
 * CIBA Core 1.0 §7.1 lets a client name the user three ways; Gatehouse takes id_token_hint only,
 * and no user_code (§7.1) or signed request (§7.1.1).
 */
export function rejectCibaUnsupported({ params }: RequestState): void {
  for (const name of UNSUPPORTED) {
    if (params.has(name)) {
      throw new OAuthError(
        'invalid_request',
        `${name} is not supported: the user is identified by id_token_hint`,
      );
    }
  }
}
