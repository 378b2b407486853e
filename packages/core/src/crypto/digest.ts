import { SHA256 } from './sha256.js';

export function sha256Bytes(value: string): Uint8Array {
  return SHA256.bytes(value);
}

/** A lookup key for a secret value, so stores never hold bearer tokens in the clear. */
export function tokenDigest(token: string): string {
  return SHA256.base64url(token);
}

/**
 * Compares a presented secret with the digest of the expected one in constant time. Hashing first
 * makes the comparison independent of both lengths and of where the strings differ.
 */
export function secretMatches(presented: string, expectedDigest: Uint8Array): boolean {
  const actual = sha256Bytes(presented);
  let difference = actual.length ^ expectedDigest.length;
  for (let i = 0; i < actual.length; i++) difference |= (actual[i] ?? 0) ^ (expectedDigest[i] ?? 0);
  return difference === 0;
}

/**
 * Whether `presented` is the secret whose `tokenDigest` is `expectedDigest`, in constant time:
 * the comparison covers every character of the two digests, which have the same length.
 */
export function digestMatches(presented: string, expectedDigest: string): boolean {
  return sameDigest(tokenDigest(presented), expectedDigest);
}

/**
 * Whether two digests in text (base64url) are equal, in a time that depends only on the length
 * of `actual`, the one computed here.
 */
export function sameDigest(actual: string, expected: string): boolean {
  let difference = actual.length ^ expected.length;
  for (let i = 0; i < actual.length; i++)
    difference |= actual.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}
