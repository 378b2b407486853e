import { sameDigest } from '../crypto/digest.js';
import { SHA256 } from '../crypto/sha256.js';
import { OAuthError } from '../errors/oauth-error.js';

/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The S256 `code_challenge` of a verifier (RFC 7636 §4.2): base64url(SHA-256(verifier)). */
export function s256Challenge(verifier: string): string {
  return SHA256.base64url(verifier);
}

/**
 * The code challenges a token request's `code_verifier` answers: none without one (`null`, a code
 * issued without a challenge), its S256 challenge, or nothing at all for one that is not a
 * verifier (43 to 128 unreserved characters).
 */
export function challengesAnswered(verifier: string | undefined): (string | null)[] {
  if (verifier === undefined) return [null];
  return CODE_VERIFIER.test(verifier) ? [s256Challenge(verifier)] : [];
}

/**
 * RFC 7636 §4.6 at the token endpoint; every failure is invalid_grant. A code bound to a
 * challenge needs its verifier. A code without one must not be sent a verifier either: an
 * attacker who stripped the challenge from the authorization request would otherwise pass as a
 * PKCE client (PKCE downgrade, RFC 9700 §2.1.1).
 */
export function checkCodeVerifier(
  challenge: string | undefined,
  verifier: string | undefined,
): void {
  if (challenge === undefined) {
    if (verifier !== undefined) {
      throw new OAuthError(
        'invalid_grant',
        'code_verifier sent for a code issued without code_challenge',
      );
    }
    return;
  }
  if (verifier === undefined)
    throw new OAuthError('invalid_grant', 'code_verifier is required for this code');
  if (!CODE_VERIFIER.test(verifier)) {
    throw new OAuthError('invalid_grant', 'code_verifier must be 43 to 128 unreserved characters');
  }
  // One digest: the challenge is no secret (it came through the browser), and what the timing of
  // comparing it with the verifier's digest could show says nothing about the verifier.
  if (!sameDigest(s256Challenge(verifier), challenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
}
