import { addressKey, DEFAULT_IPV6_PREFIX_LENGTH } from '../throttle/address-key.js';
import { FailureCounter, type ThrottleLimit } from '../throttle/failure-counter.js';

export interface LoginThrottleOptions {
  /** Per username and address together: one attacker cannot lock a user out everywhere. */
  perUsername?: ThrottleLimit;
  /** Looser than per username: users behind one NAT share an address. */
  perAddress?: ThrottleLimit;
  /** Keys tracked at most per kind; beyond that the oldest windows are forgotten first. */
  maxEntries?: number;
  /** Leading bits of an IPv6 address that count as one address. Default 64. */
  ipv6PrefixLength?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export const DEFAULT_USERNAME_LIMIT: ThrottleLimit = { maxFailures: 5, windowSeconds: 900 };
export const DEFAULT_ADDRESS_LIMIT: ThrottleLimit = { maxFailures: 20, windowSeconds: 900 };
const DEFAULT_MAX_ENTRIES = 10_000;

/** A login attempt let through: counted as a failure until it says otherwise. */
export interface LoginAttempt {
  /**
   * The address had failed before this attempt, within its window: its password check waits
   * behind those of addresses that had not.
   */
  readonly suspect: boolean;
  /**
   * The password was right: the attempt is no failure, and its username's count at its address
   * is cleared.
   */
  succeeded(): void;
  /** The password was never checked (an error): the attempt counts for nothing. */
  cancel(): void;
  /**
   * The password was never checked because too many checks were waiting: a failure of the
   * address, whose posts fill the queue, but not of the username.
   */
  busy(): void;
}

/**
 * Slows password guessing (and device user code guessing, by address): after too many failures for one username (in a realm) from one
 * address, or from one address whatever the username, the login form refuses further attempts
 * until the window passes, without checking the password. Unknown usernames count like known
 * ones, so a refusal reveals nothing. IPv6 addresses count by their /64 (`ipv6PrefixLength`),
 * what one host usually has to itself.
 */
export class LoginThrottle {
  readonly #pairs: FailureCounter;
  readonly #addresses: FailureCounter;
  readonly #ipv6PrefixLength: number;

  constructor(options: LoginThrottleOptions = {}) {
    const now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#ipv6PrefixLength = options.ipv6PrefixLength ?? DEFAULT_IPV6_PREFIX_LENGTH;
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
    const from = addressKey(address, this.#ipv6PrefixLength);
    const pair = pairKey(realm, username, from);
    if (this.#pairs.blocked(pair) || this.#addresses.blocked(from)) return undefined;
    const suspect = (this.#addresses.live(from)?.failures ?? 0) > 0;
    const pairWindow = this.#pairs.fail(pair);
    const addressWindow = this.#addresses.fail(from);
    let open = true;
    return {
      suspect,
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
      busy: () => {
        if (!open) return;
        open = false;
        pairWindow.failures -= 1;
      },
    };
  }

  /**
   * Lets a device user code typed at the verification page through, counted at once as a
   * failure of the address alone (RFC 8628 §5.1), or refuses it (undefined): guessing codes and
   * guessing passwords draw on the one budget of the address. `cancel` when the code named a
   * request, or was never checked (an error): the attempt then counts for nothing.
   */
  userCodeAttempt(address: string): { cancel(): void } | undefined {
    const from = addressKey(address, this.#ipv6PrefixLength);
    if (this.#addresses.blocked(from)) return undefined;
    const window = this.#addresses.fail(from);
    let open = true;
    return {
      cancel: () => {
        if (!open) return;
        open = false;
        window.failures -= 1;
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
