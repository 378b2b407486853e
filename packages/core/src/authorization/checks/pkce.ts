import { redirected } from '../authorization-error.js';
import { includesCode } from '../response-type.js';
import { need, type RequestState } from './check.js';

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 7636 §4.3 with S256 only (RFC 9700 §2.1.1): for a response with a code, the challenge is
 * required when the client enforces PKCE or names a method.
 */
export function checkPkce({ params, client, found }: RequestState): void {
  if (!includesCode(need(found, 'responseType'))) return;
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (challenge === undefined) {
    if (client.config.require_pkce || method !== undefined) {
      throw redirected('invalid_code_challenge', 'code_challenge is required');
    }
    return;
  }
  if (method === undefined) {
    throw redirected('invalid_code_challenge_method', 'code_challenge_method is required');
  }
  if (method !== 'S256') {
    throw redirected(
      'invalid_code_challenge_method',
      'only the S256 code_challenge_method is supported',
    );
  }
  if (!S256_CHALLENGE.test(challenge)) {
    throw redirected('invalid_code_challenge', 'code_challenge must be a base64url SHA-256 hash');
  }
  found.codeChallenge = challenge;
}
