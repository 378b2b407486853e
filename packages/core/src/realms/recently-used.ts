/**
 * How many realms' state a provider keeps in memory by default (built realm, signing keys): a
 * server of many thousand tenants holds the busy ones, and reads an idle one back from its store
 * when it is next asked for.
 */
export const LOADED_REALMS_LIMIT = 2000;

/**
 * A map of at most `limit` entries that forgets the least recently used first: reading an entry
 * counts as using it. For per-realm state, which must stay bounded however many realms a store
 * holds.
 */
export class RecentlyUsed<Value> {
  readonly #entries = new Map<string, Value>();
  readonly #limit: number;
  /**
   * The key last set or read, which is the last in the map: reading it again moves nothing. A
   * busy realm is read several times per request, and each move (a delete and a set) leaves a
   * deleted slot the map must later compact.
   */
  #newest: string | undefined;

  constructor(limit: number = LOADED_REALMS_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be at least 1');
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Value | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined && key !== this.#newest) {
      // A Map keeps insertion order: moved to the end, the entry is the most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  set(key: string, value: Value): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: string): boolean {
    if (key === this.#newest) this.#newest = undefined;
    return this.#entries.delete(key);
  }
}
