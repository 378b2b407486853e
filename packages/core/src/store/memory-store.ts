import type { ConsumeResult, RecordKey, RecordOptions, Revised, Store } from './store.js';

interface Entry {
  json: string;
  expiresAt: number;
  grantId: string | undefined;
  consumed: boolean;
  revision: number;
}

const SWEEP_EVERY_WRITES = 1024;

/**
 * The embedded default: one process, nothing persisted. Operations are atomic because they run
 * synchronously on one event loop. Expired entries are invisible at once and swept in small
 * batches as writes happen, so memory stays bounded without a timer.
 */
export class MemoryStore implements Store {
  readonly #entries = new Map<string, Entry>();
  readonly #grants = new Map<string, Set<string>>();
  readonly #now: () => number;
  #writesSinceSweep = 0;
  /** One counter for all records, so a record deleted and written again never repeats a revision. */
  #revisions = 0;
  /** Writes until the next sweep: the size the last sweep left, so sweeps cost O(1) amortised. */
  #sweepAfterWrites = SWEEP_EVERY_WRITES;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async get<T>(namespace: string, id: string): Promise<T | undefined> {
    const entry = this.#live(key(namespace, id));
    return entry ? (JSON.parse(entry.json) as T) : undefined;
  }

  async set<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<void> {
    this.#write(key(namespace, id), value, options);
  }

  async add<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<boolean> {
    const k = key(namespace, id);
    if (this.#live(k)) return false;
    this.#write(k, value, options);
    return true;
  }

  async consume<T>(namespace: string, id: string): Promise<ConsumeResult<T> | undefined> {
    const entry = this.#live(key(namespace, id));
    if (!entry) return undefined;
    const firstUse = !entry.consumed;
    entry.consumed = true;
    return { value: JSON.parse(entry.json) as T, firstUse };
  }

  async read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    const entry = this.#live(key(namespace, id));
    return entry ? { value: JSON.parse(entry.json) as T, revision: entry.revision } : undefined;
  }

  async replace<T>(namespace: string, id: string, revision: number, value: T): Promise<boolean> {
    const entry = this.#live(key(namespace, id));
    if (!entry || entry.revision !== revision) return false;
    entry.json = JSON.stringify(value);
    entry.revision = ++this.#revisions;
    return true;
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

  async revokeGrant(grantId: string): Promise<number> {
    let removed = 0;
    for (const k of [...(this.#grants.get(grantId) ?? [])]) {
      if (this.#live(k)) removed++;
      this.#remove(k);
    }
    return removed;
  }

  async ping(): Promise<void> {}

  /** Records held, including expired ones not yet swept; for monitoring memory use. */
  get size(): number {
    return this.#entries.size;
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#grants.clear();
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

  #write(k: string, value: unknown, options: RecordOptions): void {
    this.#remove(k);
    const expiresAt =
      options.ttlSeconds === undefined
        ? Number.POSITIVE_INFINITY
        : this.#now() + options.ttlSeconds * 1000;
    this.#entries.set(k, {
      json: JSON.stringify(value),
      expiresAt,
      grantId: options.grantId,
      consumed: false,
      revision: ++this.#revisions,
    });
    if (options.grantId !== undefined) {
      const members = this.#grants.get(options.grantId) ?? new Set<string>();
      this.#grants.set(options.grantId, members);
      members.add(k);
    }
    if (++this.#writesSinceSweep >= this.#sweepAfterWrites) this.#sweep();
  }

  #remove(k: string): void {
    const entry = this.#entries.get(k);
    if (!entry) return;
    this.#entries.delete(k);
    if (entry.grantId === undefined) return;
    const members = this.#grants.get(entry.grantId);
    members?.delete(k);
    if (members?.size === 0) this.#grants.delete(entry.grantId);
  }

  #sweep(): void {
    this.#writesSinceSweep = 0;
    const now = this.#now();
    for (const [k, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#remove(k);
    }
    this.#sweepAfterWrites = Math.max(SWEEP_EVERY_WRITES, this.#entries.size);
  }
}

const SEPARATOR = '\u0000';
const key = (namespace: string, id: string) => `${namespace}${SEPARATOR}${id}`;
function splitKey(k: string): RecordKey {
  const at = k.indexOf(SEPARATOR);
  return { namespace: k.slice(0, at), id: k.slice(at + 1) };
}
