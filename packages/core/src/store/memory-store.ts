import { StoreUnavailableError } from '../errors/oauth-error.js';
import { copyAsJson, copyJsonValue } from '../objects/json-copy.js';
import { CapGroups, checkCappedOptions } from './cap-groups.js';
import { meetsConditions } from './consume-if.js';
import {
  type CappedRecordOptions,
  type ConditionalConsumeResult,
  type ConsumeResult,
  type FieldConditions,
  REVOKED_GRANT_SECONDS,
  type RecordKey,
  type RecordOptions,
  type ReplaceOptions,
  type Revised,
  type Store,
  type StoreMetrics,
} from './store.js';

/**
 * A record as the shared stores would give it back: a copy with JSON's meaning (`copyAsJson`),
 * copied again for each reader, so no caller holds what the store holds.
 */
interface Entry {
  value: unknown;
  expiresAt: number;
  grantId: string | undefined;
  consumed: boolean;
  /** The note of the first consume; absent when none was given. */
  note?: { value: unknown };
  revision: number;
  /** What the entry is counted as against `maxBytes`. */
  bytes: number;
  /** The caps of a record written with `setCapped`. */
  caps: readonly string[] | undefined;
}

export interface MemoryStoreOptions {
  /** Milliseconds since the epoch. */
  now?: () => number;
  /**
   * The most the records may take, estimated as the length of their JSON (escapes not counted)
   * and key plus `ENTRY_OVERHEAD_BYTES` each. A write that would go beyond drops capped records
   * (those of `setCapped`), oldest first; with none left it is refused with `StoreUnavailableError`.
   * Default `DEFAULT_MAX_BYTES` (256 MiB).
   */
  maxBytes?: number;
}

const SWEEP_EVERY_WRITES = 1024;
/** What a record costs beside its JSON and key: the entry, the map slot, the strings' headers. */
export const ENTRY_OVERHEAD_BYTES = 200;
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
/** A full store with nothing to drop sweeps at most this often before refusing writes. */
const FULL_SWEEP_INTERVAL_MS = 1000;

/**
 * The embedded default: one process, nothing persisted. Operations are atomic because they run
 * synchronously on one event loop. Expired entries are invisible at once and swept in small
 * batches as writes happen, so memory stays bounded without a timer; `maxBytes` bounds it
 * whatever arrives, and `metrics()` counts what that cost.
 */
export class MemoryStore implements Store {
  readonly #entries = new Map<string, Entry>();
  readonly #grants = new Map<string, Set<string>>();
  readonly #caps = new CapGroups();
  /** Every capped record in write order: what a full store drops first. */
  readonly #capped = new Set<string>();
  /** Revoked grants, until when they stay closed (milliseconds since the epoch). */
  readonly #closedGrants = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxBytes: number;
  #bytes = 0;
  readonly #metrics = { evicted: 0, shed: 0, refused: 0 };
  #lastFullSweep = Number.NEGATIVE_INFINITY;
  #writesSinceSweep = 0;
  /** One counter for all records, so a record deleted and written again never repeats a revision. */
  #revisions = 0;
  /** Writes until the next sweep: the size the last sweep left, so sweeps cost O(1) amortised. */
  #sweepAfterWrites = SWEEP_EVERY_WRITES;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!(Number.isSafeInteger(this.#maxBytes) && this.#maxBytes > 0)) {
      throw new RangeError(`maxBytes must be a positive integer, got ${options.maxBytes}`);
    }
  }

  async get<T>(namespace: string, id: string): Promise<T | undefined> {
    const entry = this.#live(key(namespace, id));
    return entry ? (copyJsonValue(entry.value) as T) : undefined;
  }

  async set<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<void> {
    const k = key(namespace, id);
    if (this.#isClosed(options.grantId)) this.#remove(k);
    else this.#write(k, value, options, this.#entries.get(k));
  }

  async add<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<boolean> {
    const k = key(namespace, id);
    if (this.#live(k) || this.#isClosed(options.grantId)) return false;
    // #live removed an expired record: there is none to replace.
    this.#write(k, value, options, undefined);
    return true;
  }

  async consume<T, N = unknown>(
    namespace: string,
    id: string,
    note?: N,
  ): Promise<ConsumeResult<T, N> | undefined> {
    const entry = this.#live(key(namespace, id));
    if (!entry) return undefined;
    const firstUse = !entry.consumed;
    if (firstUse) {
      entry.consumed = true;
      const copied = note === undefined ? undefined : copyAsJson(note);
      if (copied !== undefined) {
        // Counted, not made room for: a note is small, and a redemption must not fail for it.
        entry.note = { value: copied.value };
        entry.bytes += copied.length;
        this.#bytes += copied.length;
      }
    }
    const result: ConsumeResult<T, N> = { value: copyJsonValue(entry.value) as T, firstUse };
    if (entry.note !== undefined) result.note = copyJsonValue(entry.note.value) as N;
    return result;
  }

  async consumeIf<T>(
    namespace: string,
    id: string,
    fields: FieldConditions,
  ): Promise<ConditionalConsumeResult<T> | undefined> {
    const entry = this.#live(key(namespace, id));
    if (!entry) return undefined;
    const matched = meetsConditions(entry.value, fields);
    const firstUse = matched && !entry.consumed;
    if (firstUse) entry.consumed = true;
    return { value: copyJsonValue(entry.value) as T, firstUse, matched };
  }

  async read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    const entry = this.#live(key(namespace, id));
    return entry ? { value: copyJsonValue(entry.value) as T, revision: entry.revision } : undefined;
  }

  async replace<T>(
    namespace: string,
    id: string,
    revision: number,
    value: T,
    options: ReplaceOptions = {},
  ): Promise<boolean> {
    const k = key(namespace, id);
    const entry = this.#live(k);
    if (!entry || entry.revision !== revision) return false;
    const copied = recordCopy(value);
    const bytes = entryBytes(k, copied.length);
    this.#makeRoom(bytes - entry.bytes);
    // Making room may have dropped this very record, if it was capped.
    if (this.#entries.get(k) !== entry) return false;
    this.#bytes += bytes - entry.bytes;
    Object.assign(entry, { value: copied.value, bytes, revision: ++this.#revisions });
    if (options.ttlSeconds !== undefined) entry.expiresAt = this.#now() + options.ttlSeconds * 1000;
    return true;
  }

  async setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number> {
    checkCappedOptions(options);
    const k = key(namespace, id);
    this.#write(
      k,
      value,
      { ttlSeconds: options.ttlSeconds },
      this.#entries.get(k),
      options.caps.map((cap) => cap.key),
    );
    let dropped = 0;
    for (const cap of options.caps) {
      for (const victim of this.#caps.excess(cap.key, cap.max)) {
        if (this.#live(victim)) dropped++;
        this.#remove(victim);
      }
    }
    this.#metrics.evicted += dropped;
    return dropped;
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    const k = key(namespace, id);
    const live = this.#live(k) !== undefined;
    this.#remove(k);
    return live;
  }

  async listGrant(grantId: string): Promise<RecordKey[]> {
    const keys = [...(this.#grants.get(grantId) ?? [])].filter((k) => this.#live(k));
    return keys.map(splitKey);
  }

  async revokeGrant(grantId: string): Promise<RecordKey[]> {
    this.#closedGrants.set(grantId, this.#now() + REVOKED_GRANT_SECONDS * 1000);
    const removed: RecordKey[] = [];
    for (const k of [...(this.#grants.get(grantId) ?? [])]) {
      if (this.#live(k)) removed.push(splitKey(k));
      this.#remove(k);
    }
    return removed;
  }

  async ping(): Promise<void> {}

  /** Records held, including expired ones not yet swept; for monitoring memory use. */
  get size(): number {
    return this.#entries.size;
  }

  /** What the records held count as against `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
  }

  metrics(): StoreMetrics {
    return { ...this.#metrics, records: this.#entries.size };
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#grants.clear();
    this.#caps.clear();
    this.#capped.clear();
    this.#bytes = 0;
    this.#closedGrants.clear();
  }

  #isClosed(grantId: string | undefined): boolean {
    if (grantId === undefined) return false;
    const until = this.#closedGrants.get(grantId);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#closedGrants.delete(grantId);
    return false;
  }

  #live(k: string): Entry | undefined {
    const entry = this.#entries.get(k);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#remove(k);
      return undefined;
    }
    return entry;
  }

  /** Writes the record of `k` over `previous`, the entry the map holds for `k` if any. */
  #write(
    k: string,
    value: unknown,
    options: RecordOptions,
    previous: Entry | undefined,
    caps?: readonly string[],
  ): void {
    const copied = recordCopy(value);
    const bytes = entryBytes(k, copied.length);
    // Room first: a refused write leaves the record it would have replaced as it was. Making
    // room may have dropped that record, if it was capped.
    const replaced = this.#makeRoom(bytes - (previous?.bytes ?? 0))
      ? this.#entries.get(k)
      : previous;
    // Set over, not deleted and set again: one map operation fewer on every write.
    if (replaced) this.#detach(k, replaced);
    const expiresAt =
      options.ttlSeconds === undefined
        ? Number.POSITIVE_INFINITY
        : this.#now() + options.ttlSeconds * 1000;
    this.#entries.set(k, {
      value: copied.value,
      expiresAt,
      grantId: options.grantId,
      consumed: false,
      revision: ++this.#revisions,
      bytes,
      caps,
    });
    this.#bytes += bytes;
    if (caps) {
      for (const cap of caps) this.#caps.add(cap, k);
      this.#capped.add(k);
    }
    if (options.grantId !== undefined) {
      const members = this.#grants.get(options.grantId) ?? new Set<string>();
      this.#grants.set(options.grantId, members);
      members.add(k);
    }
    if (++this.#writesSinceSweep >= this.#sweepAfterWrites) this.#sweep();
  }

  /**
   * Drops capped records, oldest first, until `bytes` more fit; with none left, sweeps the
   * expired records (at most once a second) and then refuses. True when it had to make room,
   * which may have removed records.
   */
  #makeRoom(bytes: number): boolean {
    let removed = false;
    while (this.#bytes + bytes > this.#maxBytes) {
      removed = true;
      const oldest = this.#capped.values().next();
      if (!oldest.done) {
        if (this.#live(oldest.value)) this.#metrics.shed++;
        this.#remove(oldest.value);
      } else if (this.#now() - this.#lastFullSweep >= FULL_SWEEP_INTERVAL_MS) {
        this.#lastFullSweep = this.#now();
        this.#sweep();
      } else {
        this.#metrics.refused++;
        throw new StoreUnavailableError('the memory store is full (maxBytes)');
      }
    }
    return removed;
  }

  #remove(k: string): void {
    const entry = this.#entries.get(k);
    if (!entry) return;
    this.#entries.delete(k);
    this.#detach(k, entry);
  }

  /** Takes `entry`, held under `k`, out of the byte count, its caps and its grant. */
  #detach(k: string, entry: Entry): void {
    this.#bytes -= entry.bytes;
    if (entry.caps) {
      for (const cap of entry.caps) this.#caps.remove(cap, k);
      this.#capped.delete(k);
    }
    if (entry.grantId === undefined) return;
    const members = this.#grants.get(entry.grantId);
    members?.delete(k);
    if (members?.size === 0) this.#grants.delete(entry.grantId);
  }

  #sweep(): void {
    this.#writesSinceSweep = 0;
    const now = this.#now();
    // forEach, not for…of: an iterator would make an entry array for each of the records, and a
    // sweep visits all of them (a Map may be changed while forEach runs).
    this.#entries.forEach((entry, k) => {
      if (entry.expiresAt <= now) this.#remove(k);
    });
    for (const [grantId, until] of this.#closedGrants) {
      if (until <= now) this.#closedGrants.delete(grantId);
    }
    this.#sweepAfterWrites = Math.max(SWEEP_EVERY_WRITES, this.#entries.size);
  }
}

const entryBytes = (k: string, jsonLength: number) => k.length + jsonLength + ENTRY_OVERHEAD_BYTES;

function recordCopy(value: unknown): { value: unknown; length: number } {
  const copied = copyAsJson(value);
  if (copied === undefined) throw new TypeError('a record must have a JSON value');
  return copied;
}

const SEPARATOR = '\u0000';
const key = (namespace: string, id: string) => `${namespace}${SEPARATOR}${id}`;
function splitKey(k: string): RecordKey {
  const at = k.indexOf(SEPARATOR);
  return { namespace: k.slice(0, at), id: k.slice(at + 1) };
}
