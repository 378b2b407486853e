import { createHash } from 'node:crypto';

/**
 * `at_hash` and `c_hash` for ES256 (OIDC Core 1.0 §3.1.3.6, §3.3.2.11): base64url of the left half
 * of the SHA-256 of the token, computed here rather than by the code under test.
 */
export const leftHalfSha256 = (value: string): string =>
  createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');
