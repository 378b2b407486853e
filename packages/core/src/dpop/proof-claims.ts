import { tokenDigest } from '../crypto/digest.js';

/**
 * How far back a proof's `iat` may lie, and how far ahead of the server's clock (RFC 9449 §11.1);
 * FAPI 2.0 SP §5.3.2.1-13 asks that up to 10 s ahead be accepted, for clients' clock offsets.
 */
export const PROOF_MAX_AGE_SECONDS = 60;
export const PROOF_CLOCK_SKEW_SECONDS = 10;
/** The longest a `jti` may be: a proof's identifier, not a payload. */
export const MAX_JTI_CHARS = 256;

/** The claims of a proof whose signature checked out. */
export interface ProofClaims {
  readonly jti?: unknown;
  readonly htm?: unknown;
  readonly htu?: unknown;
  readonly iat?: unknown;
  readonly ath?: unknown;
  readonly nonce?: unknown;
}

/** What the proof must say to be for this request. */
export interface ProofTarget {
  /** The request's method. */
  readonly method: string;
  /** The endpoint's URL from the configuration, never from the request's headers. */
  readonly url: string;
  /** At a resource: the access token the proof comes with, whose hash `ath` must be (§4.3 check 12). */
  readonly accessToken?: string;
  /** Seconds since the epoch. */
  readonly now: number;
}

/** One check of RFC 9449 §4.3 on the claims: undefined when it passes, else what is wrong. */
type ClaimCheck = (claims: ProofClaims, target: ProofTarget) => string | undefined;

const jti: ClaimCheck = ({ jti }) =>
  typeof jti === 'string' && jti.length > 0 && jti.length <= MAX_JTI_CHARS
    ? undefined
    : 'the DPoP proof has no jti, or a malformed one';

const htm: ClaimCheck = ({ htm }, { method }) =>
  htm === method ? undefined : 'the DPoP proof is for another HTTP method';

const htu: ClaimCheck = ({ htu }, { url }) =>
  typeof htu === 'string' && sameUrl(htu, url) ? undefined : 'the DPoP proof is for another URL';

const iat: ClaimCheck = ({ iat }, { now }) => {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'the DPoP proof has no iat';
  if (iat < now - PROOF_MAX_AGE_SECONDS) return 'the DPoP proof is too old';
  if (iat > now + PROOF_CLOCK_SKEW_SECONDS) return 'the DPoP proof is issued in the future';
  return undefined;
};

const ath: ClaimCheck = ({ ath }, { accessToken }) => {
  if (accessToken === undefined) return undefined;
  if (ath === undefined) return 'the DPoP proof has no ath for the access token';
  return ath === tokenDigest(accessToken)
    ? undefined
    : 'the DPoP proof is for another access token';
};

/** The checks of RFC 9449 §4.3 on a proof's claims (checks 8 to 12), in the order they are run. */
export const CLAIM_CHECKS: readonly ClaimCheck[] = [jti, htm, htu, iat, ath];

/** What is wrong with the claims, or undefined when every check passes. */
export function claimsProblem(claims: ProofClaims, target: ProofTarget): string | undefined {
  for (const check of CLAIM_CHECKS) {
    const problem = check(claims, target);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * `htu` names the endpoint when, parsed as a URL (RFC 3986 §6.2.2 and §6.2.3 normalisation),
 * its origin and path are the endpoint's; its query and fragment are ignored (§4.3 check 9).
 */
function sameUrl(htu: string, expected: string): boolean {
  return URL.canParse(htu) && originAndPath(htu) === originAndPath(expected);
}

function originAndPath(value: string): string {
  const url = new URL(value);
  return `${url.origin}${url.pathname}`;
}
