import { sha256Bytes } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';

/**
 * `session_state` (OpenID Connect Session Management 1.0 §3): a salted hash of the client, the
 * relying party's origin and the browser state, so the check_session_iframe can tell the RP
 * whether the session changed without revealing anything about it. The iframe's script computes
 * the same string: hex SHA-256 of `client_id origin browser_state salt`, then `.salt`.
 */
export function sessionState(clientId: string, redirectUri: string, browserState: string): string {
  const salt = randomId(8);
  const origin = new URL(redirectUri).origin;
  return `${hex(sha256Bytes(`${clientId} ${origin} ${browserState} ${salt}`))}.${salt}`;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
