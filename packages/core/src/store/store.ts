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
 */
export interface Store {
  /** The record, or undefined when absent or expired. */
  get<T>(namespace: string, id: string): Promise<T | undefined>;

  /** Writes (or replaces) a record. */
  set<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<void>;

  /**
   * Writes the record only if no live record has this id. Atomic: when several callers race,
   * exactly one gets `true`. Used for replay detection (assertion `jti`s) and for first-use key
   * generation shared by several instances.
   */
  add<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<boolean>;

  /**
   * Marks a one-time record (an authorization code, a CIBA result) as used and returns it.
   * Atomic: of any number of concurrent callers exactly one sees `firstUse: true`; the others,
   * and every later caller, see `firstUse: false` with the same value, so replays can be
   * detected and answered. The record keeps its original expiry and stays readable by `get`.
   * Undefined when absent/expired.
   */
  consume<T>(namespace: string, id: string): Promise<ConsumeResult<T> | undefined>;

  /**
   * The record with its revision, a number that changes with every write of the record (and is
   * never reused for it). With `replace` it makes compare-and-set state transitions, such as
   * those of a CIBA request. Undefined when absent/expired.
   */
  read<T>(namespace: string, id: string): Promise<Revised<T> | undefined>;

  /**
   * Writes `value` only if the record still has `revision`, i.e. nobody wrote it since it was
   * read. Atomic: of concurrent callers holding the same revision exactly one gets `true`. The
   * record keeps its expiry and grant. False when it is absent, expired or has changed.
   */
  replace<T>(namespace: string, id: string, revision: number, value: T): Promise<boolean>;

  /** Removes a record. True when a live record was removed. */
  delete(namespace: string, id: string): Promise<boolean>;

  /** Every live record written with this `grantId`, for audits and cascading revocation. */
  listGrant(grantId: string): Promise<RecordKey[]>;

  /** Removes every record written with this `grantId`; returns how many live ones went. */
  revokeGrant(grantId: string): Promise<number>;

  /** Resolves when the backing service answers; throws `StoreUnavailableError` otherwise. */
  ping(): Promise<void>;

  /** Releases connections and timers. The store is not used afterwards. */
  close(): Promise<void>;
}

export interface RecordOptions {
  /** Seconds until the record expires; absent means never. */
  ttlSeconds?: number;
  /** Groups records issued under one grant so they can be listed and revoked together. */
  grantId?: string;
}

export interface ConsumeResult<T> {
  value: T;
  firstUse: boolean;
}

export interface Revised<T> {
  value: T;
  revision: number;
}

export interface RecordKey {
  namespace: string;
  id: string;
}
