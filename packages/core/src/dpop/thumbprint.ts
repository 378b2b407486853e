import { SHA256 } from '../crypto/sha256.js';

/** RFC 7638 §3.2: the required members of each key type, in lexicographic order. */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/**
 * The RFC 7638 SHA-256 thumbprint of a public JWK, or undefined for a key type without one here
 * or a required member that is not a string. Hashed in process: WebCrypto's digest costs a
 * round trip to the thread pool, a tenth of a proof check, for a few hundred bytes.
 */
export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>): string | undefined {
  const members = typeof jwk.kty === 'string' ? REQUIRED_MEMBERS[jwk.kty] : undefined;
  if (!members) return undefined;
  const required: Record<string, unknown> = {};
  for (const member of members) {
    if (typeof jwk[member] !== 'string') return undefined;
    required[member] = jwk[member];
  }
  return SHA256.base64url(JSON.stringify(required));
}
