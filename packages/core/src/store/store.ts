/**
 * The storage contract of Gatehouse. Every record lives under a `namespace` (what kind of record:
 * `access_token`, `assertion_jti`, `signing_key`…) and an `id` unique within it. Values are plain
 * JSON-serialisable objects; implementations may serialise them and must return an equal copy,
 * never a reference the caller could mutate behind the store's back.
 *
 * Failure contract: "not found" and "expired" are `undefined`/`false`, never exceptions. A method
 * throws only when the backing service fails or times out, and then it should throw
 * `StoreUnavailableError` so the provider answers 503 `temporarily_unavailable`.
 *
 * Expiry: a record written with `ttlSeconds` must be invisible to every method once that many
 * seconds have passed (it may be physically removed later). Without `ttlSeconds` it never expires.
 *
 * Revoked grants: `revokeGrant` also closes the grant for `REVOKED_GRANT_SECONDS`. A record
 * written with a closed grant's id is not kept (`set` resolves and leaves no record under the id,
 * `add` answers false). A write racing the revocation is either removed by it or not kept: once
 * both have resolved, no record of the grant is live. So a request that used a code or a refresh
 * token just before its grant was revoked cannot leave new tokens behind.
 */
export interface Store {
  /** The record, or undefined when absent or expired. */
  get<T>(namespace: string, id: string): Promise<T | undefined>;

  /** Writes (or replaces) a record; nothing is kept when its grant is closed. */
  set<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<void>;

  /**
   * Writes the record only if no live record has this id and its grant (if any) is not closed.
   * Atomic: when several callers race, exactly one gets `true`. Used for replay detection
   * (assertion `jti`s), for first-use key generation shared by several instances, and to learn
   * whether a write under a grant was kept.
   */
  add<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<boolean>;

  /**
   * Marks a one-time record (an authorization code, a refresh token) as used and returns it.
   * Atomic: of any number of concurrent callers exactly one sees `firstUse: true`; the others,
   * and every later caller, see `firstUse: false` with the same value, so replays can be
   * detected and answered. The first caller's `note` (any JSON value) is kept with the record
   * and returned to every caller, the first included: what the first use led to, such as the
   * successor of a rotated refresh token. The record keeps its original expiry and stays
   * readable by `get`, which does not return the note. Undefined when absent/expired.
   */
  consume<T, N = unknown>(
    namespace: string,
    id: string,
    note?: N,
  ): Promise<ConsumeResult<T, N> | undefined>;

  /**
   * `consume`, on condition: marks the record used only if each field named in `fields` (a
   * top-level field of its value) holds one of the strings listed for it, `null` standing for a
   * field that is absent or null. A record that does not match stays as it was and comes back
   * with `matched: false` and `firstUse: false`, for the caller to say why. Atomic like
   * `consume`, whose used mark it shares; no note. Undefined when absent/expired. Optional: with
   * a store that lacks it the provider reads, checks and consumes in turn (`consumeIfStepwise`,
   * which a store may also call for a record it cannot evaluate itself), one round trip more.
   * The token endpoint uses it to check a code's client, redirect URI, PKCE challenge and DPoP
   * key before the code counts as used.
   */
  consumeIf?<T>(
    namespace: string,
    id: string,
    fields: FieldConditions,
  ): Promise<ConditionalConsumeResult<T> | undefined>;

  /**
   * The record with its revision, a number that changes with every write of the record (and is
   * never reused for it). With `replace` it makes compare-and-set state transitions, such as
   * those of a CIBA request. Undefined when absent/expired.
   */
  read<T>(namespace: string, id: string): Promise<Revised<T> | undefined>;

  /**
   * Writes `value` only if the record still has `revision`, i.e. nobody wrote it since it was
   * read. Atomic: of concurrent callers holding the same revision exactly one gets `true`. The
   * record keeps its grant, and its expiry unless `ttlSeconds` restarts it. False when it is
   * absent, expired or has changed.
   */
  replace<T>(
    namespace: string,
    id: string,
    revision: number,
    value: T,
    options?: ReplaceOptions,
  ): Promise<boolean>;

  /**
   * Writes (or replaces) a record that a request nobody authenticated made the provider keep —
   * an interaction waiting for its user, a logout waiting for its confirmation — so that no flood
   * of such requests can fill the store:
   * - for each of `options.caps`, at most `max` of the records written with its `key` stay: the
   *   write drops the oldest written of them beyond that (the record written counts; writing a
   *   record again counts as writing it anew, under the caps of the new write only);
   * - such records are the only ones a store may drop before their expiry when it runs short of
   *   room (the memory store's `maxBytes`), oldest written first. Records written with `set` or
   *   `add` (codes, tokens, sessions) are never dropped.
   *
   * A dropped record is gone as if deleted. `replace` and `consume` keep a record under its caps;
   * `delete` frees its place. Such a record is only ever written again with `setCapped`.
   * Resolves to how many live records the write dropped. Atomic per record; writes to one cap
   * from several instances at the same instant may leave it over `max` until a later write.
   */
  setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number>;

  /** Removes a record. True when a live record was removed. */
  delete(namespace: string, id: string): Promise<boolean>;

  /** Every live record written with this `grantId`, for audits and cascading revocation. */
  listGrant(grantId: string): Promise<RecordKey[]>;

  /**
   * Removes every record written with this `grantId` and closes the grant (see above); returns
   * the keys of the live records removed. Closing a grant that has no record is allowed.
   */
  revokeGrant(grantId: string): Promise<RecordKey[]>;

  /** Resolves when the backing service answers; throws `StoreUnavailableError` otherwise. */
  ping(): Promise<void>;

  /**
   * Counters of what this store object dropped or refused on its own since it was created, for
   * monitoring (each instance counts its own writes).
   */
  metrics(): StoreMetrics;

  /** Releases connections and timers. The store is not used afterwards. */
  close(): Promise<void>;
}

export interface CappedRecordOptions {
  /** Seconds until the record expires: a capped record always expires. */
  ttlSeconds: number;
  /** The groups the record counts in, each with the most records it may hold. */
  caps: readonly RecordCap[];
}

export interface RecordCap {
  /** Names the group, e.g. the pending interactions of one realm. */
  key: string;
  /** Records the group keeps at most; at least 1. */
  max: number;
}

export interface StoreMetrics {
  /** Live records `setCapped` dropped to keep a cap. */
  evicted: number;
  /** Live capped records dropped because the store was short of room. */
  shed: number;
  /** Writes refused because the store was full and held nothing it could drop. */
  refused: number;
  /** Records held, where the store knows without asking a server (the memory store). */
  records?: number;
}

export interface RecordOptions {
  /** Seconds until the record expires; absent means never. */
  ttlSeconds?: number;
  /** Groups records issued under one grant so they can be listed and revoked together. */
  grantId?: string;
}

/**
 * How long a revoked grant stays closed to new records. Long enough for any request that read a
 * record of the grant before the revocation to have finished writing: the provider refuses to
 * write tokens for a request that has been running for half of it.
 */
export const REVOKED_GRANT_SECONDS = 600;

export interface ReplaceOptions {
  /** Seconds from now until the record expires; absent keeps the expiry it had. */
  ttlSeconds?: number;
}

export interface ConsumeResult<T, N = unknown> {
  value: T;
  firstUse: boolean;
  /** The note of the first use, undefined when it left none. */
  note?: N;
}

/** Each named field's allowed values: strings, `null` for a field absent (or null). */
export type FieldConditions = Readonly<Record<string, readonly (string | null)[]>>;

export interface ConditionalConsumeResult<T> {
  value: T;
  firstUse: boolean;
  /** Whether the record's fields met the conditions; if not, it was left unused. */
  matched: boolean;
}

export interface Revised<T> {
  value: T;
  revision: number;
}

export interface RecordKey {
  namespace: string;
  id: string;
}
