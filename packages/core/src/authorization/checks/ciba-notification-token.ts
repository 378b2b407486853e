import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

/** CIBA Core 1.0 §7.1: RFC 6750 §2.1 `b64token`, at most 1024 characters. */
const NOTIFICATION_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_NOTIFICATION_TOKEN = 1024;

/**
 * CIBA Core 1.0 §7.1: a ping client sends the bearer token its notification endpoint will
 * expect; a poll client's is ignored. Never echoed: it is the client's secret.
 */
export function checkClientNotificationToken({ params, client, found }: RequestState): void {
  if (client.config.backchannel_token_delivery_mode !== 'ping') return;
  const token = params.get('client_notification_token');
  if (token === undefined) {
    throw new OAuthError('invalid_request', 'client_notification_token is required in ping mode');
  }
  if (token.length > MAX_NOTIFICATION_TOKEN || !NOTIFICATION_TOKEN.test(token)) {
    throw new OAuthError(
      'invalid_request',
      `client_notification_token must be a bearer token of at most ${MAX_NOTIFICATION_TOKEN} characters`,
    );
  }
  found.clientNotificationToken = token;
}
