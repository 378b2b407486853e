import { base64urlFromBytes } from './base64url.js';

/**
 * Random bytes are drawn from the CSPRNG in blocks and handed out once each: one
 * `getRandomValues` call costs about as much for 4 KiB as for 16 bytes, and it was a visible share
 * of a token request's CPU time (docs/performance-history.md).
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

function randomBytes(count: number): Uint8Array {
  if (count > POOL_BYTES) return crypto.getRandomValues(new Uint8Array(count));
  if (poolOffset + count > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolOffset = 0;
  }
  const bytes = pool.slice(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/** An unguessable identifier: `bytes` random bytes (32 by default, 256 bits), base64url. */
export function randomId(bytes = 32): string {
  return base64urlFromBytes(randomBytes(bytes));
}

/**
 * `length` characters drawn uniformly from `alphabet` (2 to 256 characters): bytes beyond the
 * largest multiple of its size are drawn again, so no character is likelier than another.
 */
export function randomCharacters(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length - out.length)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}
