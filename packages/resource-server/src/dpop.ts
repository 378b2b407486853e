import { calculateJwkThumbprint, EmbeddedJWK, type JWK, type JWTPayload, jwtVerify } from 'jose';
import type { ReplayCache } from './replay-cache.js';
import { TokenError } from './token-error.js';
import { tokenHash } from './token-hash.js';

/** How DPoP proofs are checked. */
export interface DpopRules {
  algorithms: readonly string[];
  /** Seconds after its `iat` a proof is accepted. */
  maxAgeSeconds: number;
  clockToleranceSeconds: number;
  replayCache: ReplayCache;
  now: () => number;
}

/** The request a proof must be for, and the token it must come with. */
export interface ProofTarget {
  method: string;
  /** The request's URL without query and fragment (RFC 9449 §4.3, check 9). */
  url: string;
  accessToken: string;
  /** The thumbprint the token's `cnf.jkt` names. */
  jkt: string;
}

interface ProofClaims extends JWTPayload {
  htm?: unknown;
  htu?: unknown;
  ath?: unknown;
}

const invalid = (description: string, cause?: unknown) =>
  new TokenError('invalid_dpop_proof', description, { cause });

/**
 * Checks a DPoP proof presented with a bound access token (RFC 9449 §4.3 and §7.1): `typ`
 * `dpop+jwt`, an allowed asymmetric algorithm, a signature by the public key of its `jwk` header,
 * `htm` and `htu` naming this request, `iat` within the accepted age, `ath` the hash of the
 * token, the key's thumbprint the token's `cnf.jkt`, and a `jti` not seen before. Server-provided
 * nonces are not asked for.
 */
export async function verifyDpopProof(
  proof: string,
  target: ProofTarget,
  rules: DpopRules,
): Promise<void> {
  const { payload, protectedHeader } = await jwtVerify<ProofClaims>(proof, EmbeddedJWK, {
    typ: 'dpop+jwt',
    algorithms: rules.algorithms as string[],
    requiredClaims: ['jti', 'htm', 'htu', 'iat', 'ath'],
    maxTokenAge: rules.maxAgeSeconds,
    clockTolerance: rules.clockToleranceSeconds,
    currentDate: new Date(rules.now()),
  }).catch((error: unknown) => {
    // All of a proof is the client's, its key included: WebCrypto's DataError for a malformed
    // `jwk` is as much the client's mistake as jose's errors.
    throw invalid('the DPoP proof is invalid', error);
  });
  if (payload.htm !== target.method) throw invalid('the DPoP proof is for another method');
  if (typeof payload.htu !== 'string' || !sameUrl(payload.htu, target.url)) {
    throw invalid('the DPoP proof is for another URL');
  }
  if (payload.ath !== (await tokenHash(target.accessToken))) {
    throw invalid('the DPoP proof is for another access token');
  }
  const jkt = await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256');
  if (jkt !== target.jkt)
    throw invalid('the DPoP proof is signed by another key than the token is bound to');
  if (typeof payload.jti !== 'string' || payload.jti.length > 256) {
    throw invalid('the DPoP proof has a malformed jti');
  }
  const expiresAt =
    ((payload.iat as number) + rules.maxAgeSeconds + rules.clockToleranceSeconds) * 1000;
  if (!(await rules.replayCache.add(`${jkt}:${payload.jti}`, expiresAt))) {
    throw invalid('the DPoP proof was used before');
  }
}

/** Compared as URLs (RFC 3986 §6.2.2, §6.2.3 normalisation), query and fragment ignored. */
function sameUrl(htu: string, expected: string): boolean {
  if (!URL.canParse(htu)) return false;
  const url = new URL(htu);
  return `${url.origin}${url.pathname}` === expected;
}
