export interface ThrottleLimit {
  /** Failures allowed within one window; the next attempt is refused until the window ends. */
  maxFailures: number;
  windowSeconds: number;
}

/** A key's failures in its current window. */
export interface FailureWindow {
  failures: number;
  /** Milliseconds since the epoch. */
  endsAt: number;
}

/** Failures per key in fixed windows that start at a key's first failure; in memory, bounded. */
export class FailureCounter {
  // Insertion order is window-start order, so expired windows are always at the front.
  readonly #windows = new Map<string, FailureWindow>();

  constructor(
    private readonly limit: ThrottleLimit,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  blocked(key: string): boolean {
    return this.blockedUntil(key) !== undefined;
  }

  /** When the key may try again (milliseconds since the epoch), or undefined if it may now. */
  blockedUntil(key: string): number | undefined {
    const window = this.live(key);
    return window !== undefined && window.failures >= this.limit.maxFailures
      ? window.endsAt
      : undefined;
  }

  /** Counts one failure; the window it went to, to take it back with `window.failures -= 1`. */
  fail(key: string): FailureWindow {
    const live = this.live(key);
    if (live) {
      live.failures += 1;
      return live;
    }
    this.#windows.delete(key);
    this.#purge();
    const window = { failures: 1, endsAt: this.now() + this.limit.windowSeconds * 1000 };
    this.#windows.set(key, window);
    return window;
  }

  reset(key: string): void {
    this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }

  /** The key's window if it has not ended. */
  live(key: string): FailureWindow | undefined {
    const window = this.#windows.get(key);
    return window && window.endsAt > this.now() ? window : undefined;
  }

  #purge(): void {
    const now = this.now();
    for (const [key, window] of this.#windows) {
      if (window.endsAt > now && this.#windows.size < this.maxEntries) return;
      this.#windows.delete(key);
    }
  }
}
