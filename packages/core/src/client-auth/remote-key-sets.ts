import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { OutboundFetcher } from '../outbound/outbound.js';
import type { RemoteJwks } from '../realms/realm.js';
import { fetchJwks, JwksFetchError, type JwksFetchLimits } from './fetch-jwks.js';

export interface RemoteKeySetOptions extends JwksFetchLimits {
  /** How long fetched keys are used before the document is fetched again. */
  maxAgeMs: number;
  /** An assertion naming a key the set lacks refetches the set at most this often. */
  refetchIntervalMs: number;
  /** The wait after a failed fetch; it doubles with each further failure up to `maxBackoffMs`. */
  firstBackoffMs: number;
  maxBackoffMs: number;
  /** Key sets remembered at most; the least recently used is forgotten first. */
  maxEntries: number;
}

export const DEFAULT_REMOTE_KEY_SET_OPTIONS: Readonly<RemoteKeySetOptions> = {
  timeoutMs: 5000,
  maxBytes: 64 * 1024,
  maxKeys: 50,
  maxAgeMs: 10 * 60_000,
  refetchIntervalMs: 60_000,
  firstBackoffMs: 1000,
  maxBackoffMs: 60_000,
  maxEntries: 1000,
};

interface KeySet {
  /** Milliseconds since the epoch when the fetch that produced `select` started. */
  fetchedAt: number;
  select: JWTVerifyGetKey;
}

interface Failure {
  error: JwksFetchError;
  retryAt: number;
  backoffMs: number;
}

/** Who publishes a remote key set: one of the realm's clients or trusted issuers. */
export interface KeySetHolder {
  kind: 'client' | 'trusted issuer';
  /** Its client_id or issuer identifier. */
  id: string;
}

interface Entry {
  readonly source: { remote: RemoteJwks; label: string };
  keys?: KeySet;
  failure?: Failure;
  lastFetchAt: number;
  fetching?: Promise<KeySet>;
}

/**
 * The key sets of clients registered with a jwks_uri and of trusted issuers, remembered per
 * realm, holder and URI rather than per realm object, so a host's realm loader that builds a new realm on every
 * request does not cost a fetch per request.
 *
 * Only a failed fetch is remembered as a failure (and retried after a growing backoff): what a
 * presented assertion names comes from whoever sent it, so an unknown `kid` or algorithm rejects
 * that assertion alone. It may refetch the set, at most once per `refetchIntervalMs` per holder,
 * which is how a newly published key is picked up.
 */
export class RemoteKeySets {
  readonly #entries = new Map<string, Entry>();
  readonly #options: RemoteKeySetOptions;

  constructor(
    private readonly now: () => number,
    /** Hears of each failed fetch once, when it happens. */
    private readonly report: (error: unknown) => void,
    options: Partial<RemoteKeySetOptions> = {},
    private readonly fetcher: OutboundFetcher,
  ) {
    this.#options = { ...DEFAULT_REMOTE_KEY_SET_OPTIONS, ...options };
  }

  /**
   * The key lookup for jose's `jwtVerify`. Rejects with a `JwksFetchError` while the set cannot
   * be fetched, and with jose's own errors when the set has no key for the assertion.
   */
  keyFor(realmName: string, holder: KeySetHolder, remote: RemoteJwks): JWTVerifyGetKey {
    return async (header, token) => {
      const key = `${realmName}\0${holder.kind}\0${holder.id}\0${remote.jwksUri}`;
      const entry = this.#entry(key, {
        remote,
        label: `${holder.kind} "${holder.id}" of realm "${realmName}"`,
      });
      const keys = await this.#current(entry);
      try {
        return await keys.select(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || !this.#mayRefetch(entry)) throw error;
        const refreshed = await this.#fetch(entry).catch(() => undefined);
        if (!refreshed) throw error;
        return refreshed.select(header, token);
      }
    };
  }

  /** Key sets remembered, for tests of the bound. */
  get size(): number {
    return this.#entries.size;
  }

  #entry(key: string, source: Entry['source']): Entry {
    let entry = this.#entries.get(key);
    if (entry) {
      // Most recently used last: the first entry is the one to forget.
      this.#entries.delete(key);
    } else {
      entry = { source, lastFetchAt: Number.NEGATIVE_INFINITY };
      const oldest = this.#entries.keys().next();
      if (!oldest.done && this.#entries.size >= this.#options.maxEntries) {
        this.#entries.delete(oldest.value);
      }
    }
    this.#entries.set(key, entry);
    return entry;
  }

  async #current(entry: Entry): Promise<KeySet> {
    const now = this.now();
    if (entry.keys && now - entry.keys.fetchedAt < this.#options.maxAgeMs) return entry.keys;
    if (entry.failure && now < entry.failure.retryAt && !entry.fetching) throw entry.failure.error;
    return this.#fetch(entry);
  }

  #mayRefetch(entry: Entry): boolean {
    const now = this.now();
    if (entry.failure && now < entry.failure.retryAt) return false;
    return (
      entry.fetching !== undefined || now - entry.lastFetchAt >= this.#options.refetchIntervalMs
    );
  }

  /** One fetch at a time per entry: callers arriving meanwhile share it. */
  #fetch(entry: Entry): Promise<KeySet> {
    entry.fetching ??= this.#load(entry).finally(() => {
      entry.fetching = undefined;
    });
    return entry.fetching;
  }

  async #load(entry: Entry): Promise<KeySet> {
    const startedAt = this.now();
    entry.lastFetchAt = startedAt;
    try {
      const { jwksUri, author, allowPrivateNetworks } = entry.source.remote;
      const jwks = await fetchJwks(jwksUri, this.#options, this.fetcher, {
        author,
        allowPrivateNetworks,
      });
      const keys = { fetchedAt: startedAt, select: createLocalJWKSet(jwks) };
      entry.keys = keys;
      entry.failure = undefined;
      return keys;
    } catch (error) {
      const reason =
        error instanceof JwksFetchError ? error.message : 'answered with an unusable key set';
      const failed = new JwksFetchError(`jwks_uri of ${entry.source.label}: ${reason}`, {
        cause: error instanceof JwksFetchError ? error.cause : error,
      });
      const backoffMs = entry.failure
        ? Math.min(entry.failure.backoffMs * 2, this.#options.maxBackoffMs)
        : this.#options.firstBackoffMs;
      entry.failure = { error: failed, retryAt: this.now() + backoffMs, backoffMs };
      this.report(failed);
      throw failed;
    }
  }
}
