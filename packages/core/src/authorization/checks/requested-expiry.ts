import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

const SECONDS = /^\d{1,9}$/;

/**
 * CIBA Core 1.0 §7.1: `requested_expiry` in seconds (the standalone-server contract), capped at
 * the realm's maximum; the realm's default without it.
 */
export function checkRequestedExpiry({ params, context, found }: RequestState): void {
  const ciba = context.realm.config.ciba;
  if (!ciba) throw new Error('a CIBA check ran in a realm without CIBA');
  const value = params.get('requested_expiry');
  if (value === undefined) {
    found.expiresIn = ciba.expires_in;
    return;
  }
  if (!SECONDS.test(value) || Number(value) === 0) {
    throw new OAuthError(
      'invalid_request',
      'requested_expiry must be a positive number of seconds',
    );
  }
  found.expiresIn = Math.min(Number(value), ciba.max_expires_in);
}
