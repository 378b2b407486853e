import { base64url } from 'jose';

/** An unguessable identifier: `bytes` random bytes (32 by default, 256 bits), base64url. */
export function randomId(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}
