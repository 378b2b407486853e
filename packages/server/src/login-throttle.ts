import { isIPv6 } from 'node:net';

export interface ThrottleLimit {
  /** Failures allowed within one window; the next attempt is refused until the window ends. */
  maxFailures: number;
  windowSeconds: number;
}

export interface LoginThrottleOptions {
  /** Per username and address together: one attacker cannot lock a user out everywhere. */
  perUsername?: ThrottleLimit;
  /** Looser than per username: users behind one NAT share an address. */
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

  /** Counts one failure; the window it went to, to take it back with `window.failures -= 1`. */
  fail(key: string): Window {
    const live = this.#live(key);
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

/** A login attempt let through: counted as a failure until it says otherwise. */
export interface LoginAttempt {
  /**
   * The password was right: the attempt is no failure, and its username's count at its address
   * is cleared.
   */
  succeeded(): void;
  /** The password was never checked (the server was busy): the attempt counts for nothing. */
  cancel(): void;
}

/**
 * Slows password guessing: after too many failures for one username (in a realm) from one
 * address, or from one address whatever the username, the login form refuses further attempts
 * until the window passes, without checking the password. Unknown usernames count like known
 * ones, so a refusal reveals nothing. IPv6 addresses count by their /64, what one host usually
 * has to itself.
 */
export class LoginThrottle {
  readonly #pairs: FailureCounter;
  readonly #addresses: FailureCounter;

  constructor(options: LoginThrottleOptions = {}) {
    const now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#pairs = new FailureCounter(
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

  /**
   * Lets an attempt through, counted as a failure at once, or refuses it (undefined). Counting
   * before the password check, not after, is what stops attempts sent together from all being
   * checked while the first ones are still running.
   */
  attempt(realm: string, username: string, address: string): LoginAttempt | undefined {
    const from = addressKey(address);
    const pair = pairKey(realm, username, from);
    if (this.#pairs.blocked(pair) || this.#addresses.blocked(from)) return undefined;
    const pairWindow = this.#pairs.fail(pair);
    const addressWindow = this.#addresses.fail(from);
    let open = true;
    return {
      // Only the pair's count is cleared, never the address's: someone who owns one account
      // could otherwise reset their address's count between guesses at others.
      succeeded: () => {
        if (!open) return;
        open = false;
        addressWindow.failures -= 1;
        this.#pairs.reset(pair);
      },
      cancel: () => {
        if (!open) return;
        open = false;
        pairWindow.failures -= 1;
        addressWindow.failures -= 1;
      },
    };
  }

  /** Keys held, for tests of the bound. */
  get sizes(): { pairs: number; addresses: number } {
    return { pairs: this.#pairs.size, addresses: this.#addresses.size };
  }
}

/** No configured username is longer than 200 characters, so a longer one may be cut: keys stay small. */
const pairKey = (realm: string, username: string, address: string) =>
  `${realm}\0${username.slice(0, 256)}\0${address}`;

/**
 * What the throttle counts an address as: an IPv4 address itself (also when IPv4-mapped, in any
 * spelling), an IPv6 address as its /64 (`2001:db8:0:1::/64`), anything else as given.
 */
export function addressKey(address: string): string {
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address.split('%', 1)[0] ?? '');
  const [high = 0, low = 0] = groups.slice(6);
  if (groups.slice(0, 6).join(':') === '0:0:0:0:0:65535') {
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (no zone). */
function ipv6Groups(address: string): number[] {
  const toGroups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const first = toGroups(head);
  if (tail === undefined) return first;
  const last = toGroups(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
