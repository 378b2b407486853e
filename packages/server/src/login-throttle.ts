export interface ThrottleLimit {
  /** Failures allowed within one window; the next attempt is refused until the window ends. */
  maxFailures: number;
  windowSeconds: number;
}

export interface LoginThrottleOptions {
  perUsername?: ThrottleLimit;
  /** Looser than per username: users behind one NAT or proxy share an address. */
  perAddress?: ThrottleLimit;
  /** Keys tracked at most per kind; beyond that the oldest windows are forgotten first. */
  maxEntries?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export const DEFAULT_USERNAME_LIMIT: ThrottleLimit = { maxFailures: 5, windowSeconds: 900 };
export const DEFAULT_ADDRESS_LIMIT: ThrottleLimit = { maxFailures: 20, windowSeconds: 900 };
const DEFAULT_MAX_ENTRIES = 10_000;

interface Window {
  failures: number;
  /** Milliseconds since the epoch. */
  endsAt: number;
}

/** Failures per key in fixed windows that start at a key's first failure; in memory, bounded. */
class FailureCounter {
  // Insertion order is window-start order, so expired windows are always at the front.
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly limit: ThrottleLimit,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  blocked(key: string): boolean {
    const window = this.#live(key);
    return window !== undefined && window.failures >= this.limit.maxFailures;
  }

  fail(key: string): void {
    const window = this.#live(key);
    if (window) {
      window.failures += 1;
      return;
    }
    this.#windows.delete(key);
    this.#purge();
    this.#windows.set(key, { failures: 1, endsAt: this.now() + this.limit.windowSeconds * 1000 });
  }

  reset(key: string): void {
    this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }

  #live(key: string): Window | undefined {
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

/**
 * Slows password guessing: after too many failures for one username (in a realm) or from one
 * address, the login form refuses further attempts until the window passes, without checking
 * the password. Unknown usernames count like known ones, so a refusal reveals nothing.
 */
export class LoginThrottle {
  readonly #usernames: FailureCounter;
  readonly #addresses: FailureCounter;

  constructor(options: LoginThrottleOptions = {}) {
    const now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#usernames = new FailureCounter(
      options.perUsername ?? DEFAULT_USERNAME_LIMIT,
      maxEntries,
      now,
    );
    this.#addresses = new FailureCounter(
      options.perAddress ?? DEFAULT_ADDRESS_LIMIT,
      maxEntries,
      now,
    );
  }

  blocked(realm: string, username: string, address: string): boolean {
    return (
      this.#usernames.blocked(usernameKey(realm, username)) || this.#addresses.blocked(address)
    );
  }

  failed(realm: string, username: string, address: string): void {
    this.#usernames.fail(usernameKey(realm, username));
    this.#addresses.fail(address);
  }

  /**
   * Clears the username's failures only: clearing the address too would let someone who owns
   * one account reset their counter between guesses at others.
   */
  succeeded(realm: string, username: string): void {
    this.#usernames.reset(usernameKey(realm, username));
  }

  /** Keys held, for tests of the bound. */
  get sizes(): { usernames: number; addresses: number } {
    return { usernames: this.#usernames.size, addresses: this.#addresses.size };
  }
}

/** No configured username is longer than 200 characters, so a longer one may be cut: keys stay small. */
const usernameKey = (realm: string, username: string) => `${realm}\0${username.slice(0, 256)}`;
