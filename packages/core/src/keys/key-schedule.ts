import type { SigningAlgorithm } from '../config/signing-algorithms.js';
import type { Realm } from '../realms/realm.js';
import type { SigningKey } from './signing-key.js';

/** Allowance for verifiers whose clocks run behind ours. */
const CLOCK_SKEW_SECONDS = 60;

/**
 * Keys still in the JWKS: each stays until its successor has signed for longer than any token
 * lives. The successor of a key of an algorithm the realm signs with is the next key of that
 * algorithm; of a key of an algorithm the realm no longer uses (`signing_alg` changed), the next
 * key of any.
 */
export function publishedKeys(
  keys: readonly SigningKey[],
  realm: Realm,
  nowSeconds: number,
): SigningKey[] {
  return keys.filter((_, index) => isPublished(keys, index, realm, nowSeconds));
}

/**
 * The key that signs with `alg` now: the newest published key of `alg`, unless the realm's
 * `key_rotation_seconds` have passed since it was made (then none, and the caller makes the
 * next). Not simply the newest key: a realm signs with several algorithms, and while instances
 * with different `signing_alg` settings run side by side (a rolling deploy), each keeps signing
 * with its own published key instead of appending a new one on every request. Looks only at the
 * newest keys, however long the realm's history: it runs for every token signed.
 */
export function usableKey(
  keys: readonly SigningKey[],
  realm: Realm,
  alg: SigningAlgorithm,
  nowSeconds: number,
): SigningKey | undefined {
  const index = keys.findLastIndex((key) => key.alg === alg);
  const key = keys[index];
  if (!key || !isPublished(keys, index, realm, nowSeconds)) return undefined;
  const period = realm.config.key_rotation_seconds;
  return period !== undefined && nowSeconds >= key.createdAt + period ? undefined : key;
}

function isPublished(
  keys: readonly SigningKey[],
  index: number,
  realm: Realm,
  nowSeconds: number,
): boolean {
  const key = keys[index] as SigningKey;
  const inUse = realm.signingAlgorithms.includes(key.alg);
  let successor: SigningKey | undefined;
  for (let next = index + 1; next < keys.length && !successor; next++) {
    const candidate = keys[next];
    if (!inUse || candidate?.alg === key.alg) successor = candidate;
  }
  const retention = realm.longestSignedLifetime + CLOCK_SKEW_SECONDS;
  return successor === undefined || successor.createdAt + retention > nowSeconds;
}
