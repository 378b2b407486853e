import {
  type AuthenticatorPush,
  type CibaNotification,
  OutboundError,
  type OutboundFetcher,
} from '@gatehouse-oidc/core';
import { type ErrorReporter, redactAuthReqId } from '../report-error.js';

/**
 * The JSON body POSTed to a realm's `ciba.authenticator.webhook_url`. Every key is always
 * present: `client_name` and `binding_message` are null when the client has no name or the
 * request no message.
 */
export interface WebhookPayload {
  realm: string;
  auth_req_id: string;
  sub: string;
  client_id: string;
  client_name: string | null;
  /** Space-separated, as OAuth writes scopes. */
  scope: string;
  binding_message: string | null;
  /** Seconds since the epoch after which the request can no longer be approved. */
  expires_at: number;
}

/** What the push needs of `setTimeout` between attempts, injectable so tests control time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WebhookPushOptions {
  /** The webhook URL of every realm with CIBA, by realm name (a Map, or a lookup of its own). */
  webhooks: Pick<ReadonlyMap<string, string>, 'get'>;
  /** Receives one error per failed attempt; never the auth_req_id in full nor the URL's path. */
  report: ErrorReporter;
  /** The server's bounded fetcher, which every outbound request goes through. */
  fetcher: OutboundFetcher;
  timers?: Timers;
  /** How long one attempt may take until the response headers. Default 5 s. */
  timeoutMs?: number;
  /** The waits before the 2nd, 3rd… attempt; its length + 1 is the number of attempts. */
  retryDelaysMs?: readonly number[];
  /** Pushes delivered at once per realm, retries included; the others wait. Default 8. */
  maxConcurrentPerRealm?: number;
  /** Pushes waiting per realm; beyond it `accepts` is false and a push is dropped. Default 100. */
  maxQueuedPerRealm?: number;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 4000];
export const DEFAULT_MAX_CONCURRENT_PER_REALM = 8;
export const DEFAULT_MAX_QUEUED_PER_REALM = 100;

/** A realm's pushes: how many are being delivered, and the turns of those waiting. */
interface Lane {
  running: number;
  waiting: (() => void)[];
  /** Whether the full queue has been reported since it last had room. */
  fullReported: boolean;
}

/** Why one attempt failed, and whether another attempt may succeed. */
interface Failure {
  reason: string;
  retry: boolean;
}

/** A delivery failure, as the ErrorReporter receives it. */
export class WebhookPushError extends Error {
  override name = 'WebhookPushError';

  constructor(message: string) {
    super(message);
    // An operational failure, not a bug: where in the code it was noticed says nothing more.
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * The standalone server's AuthenticatorPush: POSTs the request as JSON to the realm's webhook.
 * An attempt fails on a network error, a timeout or any status but 2xx; network errors,
 * timeouts and 5xx are retried after the configured delays, other statuses are not (the
 * receiver refused this payload and will refuse it again). Every failure goes to `report`, and
 * `notify` never rejects: the client's request does not depend on the push.
 *
 * A slow or failing webhook must not gather pushes without bound: each realm delivers a few at a
 * time and queues a bounded number more. While the queue is full, `accepts` says so and the
 * provider refuses new CIBA requests of the realm with 503.
 */
export class WebhookPush implements AuthenticatorPush {
  readonly #options: Required<Omit<WebhookPushOptions, 'webhooks' | 'report' | 'fetcher'>>;
  readonly #fetcher: OutboundFetcher;
  readonly #webhooks: WebhookPushOptions['webhooks'];
  readonly #lanes = new Map<string, Lane>();
  readonly #report: ErrorReporter;
  /** Aborts every attempt and wait in progress when the server closes. */
  readonly #closing = new AbortController();

  constructor(options: WebhookPushOptions) {
    this.#webhooks = options.webhooks;
    this.#report = options.report;
    this.#fetcher = options.fetcher;
    this.#options = {
      timers: options.timers ?? {
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      maxConcurrentPerRealm: options.maxConcurrentPerRealm ?? DEFAULT_MAX_CONCURRENT_PER_REALM,
      maxQueuedPerRealm: options.maxQueuedPerRealm ?? DEFAULT_MAX_QUEUED_PER_REALM,
    };
  }

  /** Whether a push for the realm would be delivered or queued now; reports a full queue once. */
  accepts(realm: string): boolean {
    const lane = this.#lanes.get(realm);
    if (!lane || this.#hasRoom(lane)) return true;
    if (!lane.fullReported) {
      lane.fullReported = true;
      const { maxConcurrentPerRealm, maxQueuedPerRealm } = this.#options;
      this.#fail(
        `CIBA pushes for realm "${realm}": ${maxConcurrentPerRealm} in progress and ${maxQueuedPerRealm} waiting; new requests are refused until the webhook catches up`,
      );
    }
    return false;
  }

  async notify(notification: CibaNotification): Promise<void> {
    const lane = this.#laneOf(notification.realm);
    if (!this.#hasRoom(lane)) {
      // A request accepted just before the queue filled up: it expires unanswered.
      this.#fail(
        `CIBA push for realm "${notification.realm}", auth_req_id ${redactAuthReqId(notification.authReqId)}: the queue is full; not sent`,
      );
      return;
    }
    if (lane.running < this.#options.maxConcurrentPerRealm) lane.running += 1;
    else await new Promise<void>((start) => lane.waiting.push(start));
    try {
      await this.#deliver(notification);
    } finally {
      this.#release(notification.realm, lane);
    }
  }

  async #deliver(notification: CibaNotification): Promise<void> {
    const url = this.#webhooks.get(notification.realm);
    const attempts = this.#options.retryDelaysMs.length + 1;
    const fail = (attempt: number, failure: Failure, next: string) =>
      this.#fail(
        `CIBA push for realm "${notification.realm}", auth_req_id ${redactAuthReqId(notification.authReqId)}` +
          `${url ? ` to ${new URL(url).origin}` : ''}: ${failure.reason} (attempt ${attempt} of ${attempts}); ${next}`,
      );
    if (url === undefined) {
      fail(1, { reason: 'the realm has no webhook_url', retry: false }, 'not sent');
      return;
    }
    const body = JSON.stringify(webhookPayload(notification));
    for (let attempt = 1; ; attempt++) {
      if (this.#closing.signal.aborted) {
        fail(attempt, { reason: 'the server is closing', retry: false }, 'not sent');
        return;
      }
      const failure = await this.#attempt(url, body);
      if (failure === undefined) return;
      if (this.#closing.signal.aborted) {
        fail(attempt, failure, 'abandoned');
        return;
      }
      const delay = failure.retry ? this.#options.retryDelaysMs[attempt - 1] : undefined;
      if (delay === undefined) {
        fail(attempt, failure, failure.retry ? 'giving up' : 'not retried');
        return;
      }
      fail(attempt, failure, `retrying in ${delay} ms`);
      await this.#wait(delay);
    }
  }

  /** Abandons the attempts in progress (reported as failures) and sends nothing more. */
  close(): void {
    this.#closing.abort();
    // The waiting pushes find the server closing and report it.
    for (const lane of this.#lanes.values()) {
      for (const start of lane.waiting.splice(0)) {
        lane.running += 1;
        start();
      }
    }
  }

  #laneOf(realm: string): Lane {
    let lane = this.#lanes.get(realm);
    if (!lane) {
      lane = { running: 0, waiting: [], fullReported: false };
      this.#lanes.set(realm, lane);
    }
    return lane;
  }

  #hasRoom(lane: Lane): boolean {
    const { maxConcurrentPerRealm, maxQueuedPerRealm } = this.#options;
    return lane.running < maxConcurrentPerRealm || lane.waiting.length < maxQueuedPerRealm;
  }

  /** The slot passes straight to the next waiting push; an idle lane is forgotten. */
  #release(realm: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) next();
    else lane.running -= 1;
    if (this.#hasRoom(lane)) lane.fullReported = false;
    if (lane.running === 0 && lane.waiting.length === 0) this.#lanes.delete(realm);
  }

  async #attempt(url: string, body: string): Promise<Failure | undefined> {
    const { timeoutMs } = this.#options;
    try {
      const response = await this.#fetcher.send({
        url,
        method: 'POST',
        author: 'operator',
        headers: { 'content-type': 'application/json' },
        body,
        timeoutMs,
        ignoreBody: true,
        signal: this.#closing.signal,
      });
      if (response.status >= 200 && response.status < 300) return undefined;
      return { reason: `HTTP ${response.status}`, retry: response.status >= 500 };
    } catch (error) {
      if (this.#closing.signal.aborted) return { reason: 'the server is closing', retry: false };
      if (!(error instanceof OutboundError)) throw error;
      switch (error.failure) {
        case 'timeout':
          return { reason: `no answer in ${timeoutMs} ms`, retry: true };
        case 'network':
          return { reason: networkReason(error), retry: true };
        default:
          // A webhook that moved, or a URL refused: configuration errors, not worth a retry.
          return { reason: error.message, retry: false };
      }
    }
  }

  /** Resolves after `ms`, or at once when the server closes. */
  #wait(ms: number): Promise<void> {
    const { timers } = this.#options;
    return new Promise((resolve) => {
      if (this.#closing.signal.aborted) return resolve();
      const done = () => {
        timers.clearTimeout(timer);
        this.#closing.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = timers.setTimeout(done, ms);
      this.#closing.signal.addEventListener('abort', done);
    });
  }

  #fail(message: string): void {
    try {
      this.#report(new WebhookPushError(message), undefined);
    } catch {
      // A failing reporter must not turn into an unhandled rejection of the push.
    }
  }
}

export function webhookPayload(notification: CibaNotification): WebhookPayload {
  return {
    realm: notification.realm,
    auth_req_id: notification.authReqId,
    sub: notification.sub,
    client_id: notification.clientId,
    client_name: notification.clientName ?? null,
    scope: notification.scopes.join(' '),
    binding_message: notification.bindingMessage ?? null,
    expires_at: notification.expiresAt,
  };
}

/**
 * The fetcher's network failure carries fetch's "fetch failed", whose cause is the socket error;
 * only that error's code is kept (the messages may quote the URL).
 */
function networkReason(error: OutboundError): string {
  const failed = error.cause instanceof Error ? error.cause : undefined;
  const socket = failed?.cause;
  const code =
    typeof socket === 'object' && socket !== null && 'code' in socket
      ? String(socket.code)
      : undefined;
  return `network error (${code ?? failed?.name ?? 'unknown'})`;
}
