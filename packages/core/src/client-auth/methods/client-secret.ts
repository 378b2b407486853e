import { secretMatches } from '../../crypto/digest.js';
import type { Client } from '../../realms/realm.js';
import type { PresentedCredentials } from '../presented.js';

/** Digest compared against when the client is unknown, so both paths do the same work. */
const UNKNOWN_CLIENT_DIGEST = new Uint8Array(32);

/** client_secret_post and client_secret_basic (RFC 6749 §2.3.1): constant-time comparison. */
export function verifyClientSecret(
  client: Client | undefined,
  presented: PresentedCredentials,
): boolean {
  if (presented.kind !== 'basic' && presented.kind !== 'post') return false;
  const matches = secretMatches(presented.secret, client?.secretDigest ?? UNKNOWN_CLIENT_DIGEST);
  return matches && client !== undefined;
}
