import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlFromBytes } from './base64url.js';

const encoder = new TextEncoder();
/**
 * Where a short value's UTF-8 goes to be hashed: `encodeInto` a buffer kept for it is several
 * times cheaper than `encode` allocating one per digest, of which a code exchange takes five
 * digests (docs/performance.md). Wiped after each use, so it keeps no secret between digests.
 */
const scratch = new Uint8Array(4096);
/** UTF-8 takes at most 3 bytes per UTF-16 code unit: a value this long always fits. */
const SCRATCH_CHARACTERS = Math.floor(scratch.length / 3);

export function sha256Bytes(value: string): Uint8Array {
  if (value.length > SCRATCH_CHARACTERS) return sha256(encoder.encode(value));
  const { written } = encoder.encodeInto(value, scratch);
  const digest = sha256(scratch.subarray(0, written));
  scratch.fill(0, 0, written);
  return digest;
}

/** A lookup key for a secret value, so stores never hold bearer tokens in the clear. */
export function tokenDigest(token: string): string {
  return base64urlFromBytes(sha256Bytes(token));
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
