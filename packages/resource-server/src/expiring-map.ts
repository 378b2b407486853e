/**
 * A map whose entries expire, holding at most `maxEntries`: when full, the oldest entries make
 * room, expired ones first. For the replay cache and the introspection cache, where the
 * keys come from requests and must not grow memory without bound.
 */
export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Stores `value` until `expiresAt` (milliseconds since the epoch), replacing any entry. */
  set(key: string, value: V, expiresAt: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#makeRoom();
    this.#entries.set(key, { value, expiresAt });
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Drops the expired entries at the front, then the oldest if still full: a constant amount of
   * work per insertion, however full. Expired entries further in go when read or reached.
   */
  #makeRoom(): void {
    const now = this.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now && this.#entries.size < this.maxEntries) return;
      this.#entries.delete(key);
      if (entry.expiresAt > now) return;
    }
  }
}
