import { OutboundError, type OutboundFetcher } from '../outbound/outbound.js';
/** What one back-channel logout notification may cost. */
export interface BackchannelDeliveryOptions {
  /** Milliseconds each attempt may take, from the request to the response's status. */
  timeoutMs: number;
  /** Attempts at most, the first included. */
  attempts: number;
  /** The wait before the second attempt; it doubles before each further one. */
  firstBackoffMs: number;
  /** Attempts in flight at once, over every receiver; the others wait their turn. */
  concurrent: number;
  /**
   * Attempts in flight at once to one receiver (one origin), so a receiver that never answers
   * holds only these places and the others' tokens go on.
   */
  concurrentPerReceiver: number;
  /** Attempts waiting at most; beyond it a delivery fails at once and is reported. */
  waiting: number;
}

export const DEFAULT_BACKCHANNEL_DELIVERY_OPTIONS: Readonly<BackchannelDeliveryOptions> = {
  timeoutMs: 5000,
  attempts: 3,
  firstBackoffMs: 1000,
  concurrent: 32,
  concurrentPerReceiver: 4,
  waiting: 10_000,
};

/** A logout token did not reach a client; the message names the client, never the token. */
export class BackchannelLogoutError extends Error {
  override name = 'BackchannelLogoutError';
}

/** Where a logout token goes: the client's backchannel_logout_uri, and how reports name it. */
export interface BackchannelTarget {
  uri: string;
  /** E.g. `client "mail" of realm "demo"`. */
  label: string;
}

/** What one notification POSTs: its headers (the content type among them) and its body. */
export interface BackchannelNotice {
  headers: Record<string, string>;
  body: string;
}

/** An answer worth another attempt: the receiver may do better later. */
const isTransient = (status: number) => status === 408 || status === 429 || status >= 500;

/** A failure worth another attempt: no answer, rather than a URL or an answer refused. */
const isTransientFailure = (error: unknown) =>
  !(error instanceof OutboundError) || error.failure === 'timeout' || error.failure === 'network';

/**
 * POSTs notifications to clients in the background: logout tokens (Back-Channel Logout 1.0
 * §2.5) and CIBA pings (CIBA Core 1.0 §10.2). What caused them never waits for a receiver. Each attempt is bounded in time, and no
 * answer's body is read (the status says all, so a receiver cannot make the provider hold an
 * endless body); redirects are not followed. A network failure, a timeout, 408, 429 or 5xx is
 * retried after a growing backoff, a bounded number of times; any other answer than 200 or 204
 * ends the delivery. Each delivery that fails in the end is reported once.
 */
export class BackchannelDelivery {
  readonly #options: BackchannelDeliveryOptions;
  readonly #places: Places;
  /** The places of each receiver with attempts in flight or waiting, by origin. */
  readonly #receivers = new Map<string, Places>();
  /** Attempts waiting for either kind of place. */
  #waiting = 0;

  constructor(
    private readonly report: (error: unknown) => void,
    options: Partial<BackchannelDeliveryOptions> = {},
    private readonly fetcher: OutboundFetcher,
  ) {
    this.#options = { ...DEFAULT_BACKCHANNEL_DELIVERY_OPTIONS, ...options };
    this.#places = new Places(this.#options.concurrent);
  }

  /**
   * Delivers a logout token to `target`; resolves with why it did not arrive, or undefined once
   * it did. Each attempt sends a token `issue` makes when the attempt has its turn, so a token
   * does not expire in the queue or between retries. Rejects only when `issue` does.
   */
  async deliver(
    target: BackchannelTarget,
    issue: () => Promise<string>,
  ): Promise<string | undefined> {
    const reason = await this.post(target.uri, async () => ({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: await issue() }).toString(),
    }));
    if (reason !== undefined) {
      this.report(
        new BackchannelLogoutError(`back-channel logout to ${target.label} failed: ${reason}`),
      );
    }
    return reason;
  }

  /**
   * POSTs the notice `prepare` makes when each attempt has its turn, within the same bounds,
   * retries and places as logout tokens; resolves with why it did not arrive (not reported: the
   * caller says what failed), or undefined once it did. Rejects only when `prepare` does.
   */
  async post(uri: string, prepare: () => Promise<BackchannelNotice>): Promise<string | undefined> {
    const { attempts, firstBackoffMs } = this.#options;
    let reason = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await delay(firstBackoffMs * 2 ** (attempt - 2));
      const release = await this.#turn(uri);
      if (!release) {
        reason = 'too many back-channel notifications waiting';
        break;
      }
      const outcome = await prepare()
        .then((notice) => this.#attempt(uri, notice))
        .finally(release);
      if (outcome.delivered) return undefined;
      reason = outcome.reason;
      if (!outcome.retry) break;
    }
    return reason;
  }

  /**
   * Waits for a place among the receiver's attempts in flight, then among all (ending a realm's
   * sessions may notify thousands of receivers at once), and returns what gives both back; or
   * undefined when too many wait already.
   */
  async #turn(uri: string): Promise<(() => void) | undefined> {
    const origin = originOf(uri);
    const receiver = this.#receivers.get(origin) ?? new Places(this.#options.concurrentPerReceiver);
    this.#receivers.set(origin, receiver);
    if (!(await this.#take(receiver))) {
      if (receiver.idle) this.#receivers.delete(origin);
      return undefined;
    }
    if (!(await this.#take(this.#places))) {
      this.#giveBack(receiver, origin);
      return undefined;
    }
    return () => {
      this.#places.give();
      this.#giveBack(receiver, origin);
    };
  }

  async #take(places: Places): Promise<boolean> {
    if (places.take()) return true;
    if (this.#waiting >= this.#options.waiting) return false;
    this.#waiting += 1;
    await places.wait();
    this.#waiting -= 1;
    return true;
  }

  #giveBack(receiver: Places, origin: string): void {
    receiver.give();
    if (receiver.idle) this.#receivers.delete(origin);
  }

  async #attempt(
    uri: string,
    notice: BackchannelNotice,
  ): Promise<{ delivered: true } | { delivered: false; retry: boolean; reason: string }> {
    try {
      const response = await this.fetcher.send({
        url: uri,
        method: 'POST',
        author: 'operator',
        headers: notice.headers,
        body: notice.body,
        timeoutMs: this.#options.timeoutMs,
        ignoreBody: true,
      });
      if (response.status === 200 || response.status === 204) return { delivered: true };
      return {
        delivered: false,
        retry: isTransient(response.status),
        reason: `answered HTTP ${response.status}`,
      };
    } catch (error) {
      const reason = error instanceof OutboundError ? error.message : 'could not be reached';
      return { delivered: false, retry: isTransientFailure(error), reason };
    }
  }
}

/**
 * A number of places: taken at once while one is free, else waited for in order. A place given
 * back passes straight to the first waiting, so `taken` stays as it is.
 */
class Places {
  #taken = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  take(): boolean {
    if (this.#taken >= this.size) return false;
    this.#taken += 1;
    return true;
  }

  wait(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#taken -= 1;
  }

  get idle(): boolean {
    return this.#taken === 0 && this.#waiting.length === 0;
  }
}

/** Where attempts to one receiver are counted: its origin, or the whole URI if it has none. */
function originOf(uri: string): string {
  try {
    return new URL(uri).origin;
  } catch {
    return uri;
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
