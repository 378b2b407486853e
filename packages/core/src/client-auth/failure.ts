import { OAuthError } from '../errors/oauth-error.js';

/**
 * The one answer to every failed client authentication: an unknown client, a wrong secret, a
 * method other than the registered one all look the same from outside. Basic authentication gets
 * 401 with a challenge (RFC 6749 §5.2); the 400 of docs/interface.md §7.3 applies otherwise.
 */
export function clientAuthenticationFailed(kind: string, cause?: unknown): OAuthError {
  return kind === 'basic'
    ? new OAuthError('invalid_client', 'client authentication failed', {
        status: 401,
        headers: { 'www-authenticate': 'Basic realm="gatehouse", charset="UTF-8"' },
        cause,
      })
    : new OAuthError('invalid_client', 'client authentication failed', { cause });
}
