import { ExpiringMap } from './expiring-map.js';

/**
 * Where DPoP proofs' `jti`s are remembered while the proofs could still be accepted (RFC 9449
 * §11.1). The in-memory default serves one process; several instances behind a load balancer
 * need a shared one (a Redis `SET key 1 NX PX ttl` is one).
 */
export interface ReplayCache {
  /**
   * Records `key` until `expiresAt` (milliseconds since the epoch). Resolves `true` when the key
   * was new, `false` when it was already recorded and has not expired: a replay. Must be atomic.
   */
  add(key: string, expiresAt: number): boolean | Promise<boolean>;
}

export interface MemoryReplayCacheOptions {
  /**
   * Proofs remembered at most (default 100,000, some 20 MB). When full, expired entries go first,
   * then the oldest, whose proof could then be replayed until its `iat` is too old: size it for
   * the proofs the resource accepts within a proof's lifetime.
   */
  maxEntries?: number;
  /** Milliseconds since the epoch; `Date.now` by default. */
  now?: () => number;
}

/** A bounded in-memory ReplayCache for a single process. */
export function memoryReplayCache(options: MemoryReplayCacheOptions = {}): ReplayCache {
  const seen = new ExpiringMap<true>(options.maxEntries ?? 100_000, options.now ?? Date.now);
  return {
    add(key, expiresAt) {
      if (seen.get(key)) return false;
      seen.set(key, true, expiresAt);
      return true;
    },
  };
}
