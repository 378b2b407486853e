import { nowSeconds, type RealmContext } from '../../context.js';
import { secretMatches } from '../../crypto/digest.js';
import type { Client, PreviousSecret } from '../../realms/realm.js';
import type { PresentedCredentials } from '../presented.js';

/** Digest compared against when the client is unknown, so both paths do the same work. */
const UNKNOWN_CLIENT_DIGEST = new Uint8Array(32);

/**
 * client_secret_post and client_secret_basic (RFC 6749 §2.3.1): constant-time comparison with the
 * secret, and with the previous one while it has not expired (a rotation's overlap).
 */
export function verifyClientSecret(
  client: Client | undefined,
  presented: PresentedCredentials,
  context: RealmContext,
): boolean {
  if (presented.kind !== 'basic' && presented.kind !== 'post') return false;
  const matches = secretMatches(presented.secret, client?.secretDigest ?? UNKNOWN_CLIENT_DIGEST);
  const previous = livePreviousSecret(client, context);
  const matchesPrevious =
    previous !== undefined && secretMatches(presented.secret, previous.digest);
  return (matches || matchesPrevious) && client !== undefined;
}

/** The client's previous secret while it still works. */
export function livePreviousSecret(
  client: Client | undefined,
  context: RealmContext,
): PreviousSecret | undefined {
  const previous = client?.previousSecret;
  return previous && nowSeconds(context) < previous.expiresAt ? previous : undefined;
}
