import { base64url } from 'jose';

/** The base64url SHA-256 of a token: a DPoP proof's `ath` (RFC 9449 §4.2), a cache key. */
export async function tokenHash(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return base64url.encode(new Uint8Array(digest));
}
