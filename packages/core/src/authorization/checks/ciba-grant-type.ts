import { CIBA_GRANT_TYPE } from '../../config/client.js';
import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

/** CIBA Core 1.0 §4 and §13: only a client registered for the CIBA grant may start one. */
export function checkCibaGrantType({ client }: RequestState): void {
  if (!client.grantTypes.has(CIBA_GRANT_TYPE)) {
    throw new OAuthError('unauthorized_client', `this client may not use ${CIBA_GRANT_TYPE}`);
  }
}
