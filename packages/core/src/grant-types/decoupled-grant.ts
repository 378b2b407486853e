import { giveConsent, registerGrant } from '../consent/consents.js';
import type { RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import { OAuthError } from '../errors/oauth-error.js';

// What the decoupled grants share: the user approves away from the client, which polls.

/**
 * The store grant of tokens a user approved away from the client (CIBA on an authenticator, the
 * device grant in a browser), registered with the user's consent to the client: that approval is
 * the consent, and revoking the consent revokes these tokens too. No browser session holds them,
 * so logging out of one does not end them.
 */
export async function consentedGrant(
  context: RealmContext,
  sub: string,
  clientId: string,
  scopes: string[],
): Promise<string> {
  const { refresh_token_ttl, access_token_ttl } = context.realm.config;
  for (let attempt = 0; attempt < 2; attempt++) {
    const consent = await giveConsent(context, sub, clientId, scopes);
    const grantId = randomId(16);
    if (await registerGrant(context, consent, grantId, refresh_token_ttl + access_token_ttl))
      return grantId;
  }
  throw new OAuthError('invalid_grant', 'the grant was revoked while its tokens were issued');
}

/**
 * A poll sooner than `interval` seconds after the previous one, or after the request before any
 * (CIBA Core 1.0 §7.3, RFC 8628 §3.5).
 */
export const polledTooSoon = (
  request: { lastPollAtMs: number; interval: number },
  nowMs: number,
): boolean => nowMs < request.lastPollAtMs + request.interval * 1000;
