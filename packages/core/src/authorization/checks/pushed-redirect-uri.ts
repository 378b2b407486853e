import { OAuthError } from '../../errors/oauth-error.js';
import { isRegisteredRedirectUri } from '../redirect-uri-match.js';
import type { RequestState } from './check.js';

/**
 * RFC 9126 §2.1 (and RFC 6749 §3.1.2.3): the redirect_uri of a pushed request is checked when it
 * is pushed, exactly as the authorization endpoint checks it; the client hears the error there.
 */
export function checkPushedRedirectUri({ params, client, found }: RequestState): void {
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined || !isRegisteredRedirectUri(client, redirectUri)) {
    throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
  }
  found.redirectUri = redirectUri;
}
