import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { type FetchLimits, fetchBounded, jsonObjectOf } from './bounded-fetch.js';
import { FailureBackoff } from './failure-backoff.js';
import { UpstreamError } from './token-error.js';

/** The bounds of a remote key set: those of the core's remote key sets (docs/decisions.md). */
export interface KeySetLimits extends FetchLimits {
  /** Keys a document may hold. */
  maxKeys: number;
  /** How long fetched keys are used before the document is fetched again. */
  maxAgeMs: number;
  /** A token naming a key the set lacks refetches it at most this often. */
  refetchIntervalMs: number;
}

export const DEFAULT_KEY_SET_LIMITS: Readonly<KeySetLimits> = {
  timeoutMs: 5000,
  maxBytes: 64 * 1024,
  maxKeys: 50,
  maxAgeMs: 10 * 60_000,
  refetchIntervalMs: 60_000,
};

/**
 * The issuer's keys from its jwks_uri, for jose's `jwtVerify`: jose's `createRemoteJWKSet` caches
 * them, refetches for an unknown `kid` at most once per `refetchIntervalMs` and shares a fetch in
 * flight; its fetch is ours, so the document is bounded in time, bytes and keys, redirects are
 * refused, and a failed fetch makes the requests of the next seconds fail at once (FailureBackoff)
 * rather than each wait for the timeout.
 */
export function remoteKeySet(
  jwksUri: string,
  limits: KeySetLimits,
  fetchImpl: typeof fetch,
  now: () => number,
): JWTVerifyGetKey {
  const backoff = new FailureBackoff(now);
  const boundedFetch = (url: string, init: RequestInit) =>
    backoff.run(async () => {
      const what = `the jwks_uri ${jwksUri}`;
      const answer = await fetchBounded(fetchImpl, what, url, init, limits);
      if (answer.status !== 200) throw new UpstreamError(`${what} answered HTTP ${answer.status}`);
      const keys = jsonObjectOf(answer, what).keys;
      if (!Array.isArray(keys)) throw new UpstreamError(`${what} did not answer with a JWK Set`);
      if (keys.length > limits.maxKeys) {
        throw new UpstreamError(
          `${what} answered ${keys.length} keys, more than ${limits.maxKeys}`,
        );
      }
      return new Response(answer.text, { headers: { 'content-type': 'application/json' } });
    });
  return createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: limits.timeoutMs,
    cooldownDuration: limits.refetchIntervalMs,
    cacheMaxAge: limits.maxAgeMs,
    [customFetch]: boundedFetch,
  });
}
