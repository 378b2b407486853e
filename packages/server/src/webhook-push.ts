import type { AuthenticatorPush, CibaNotification } from '@gatehouse/core';
import { type ErrorReporter, redactAuthReqId } from './report-error.js';

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

/** What the push needs of `setTimeout`, injectable so tests control time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WebhookPushOptions {
  /** The webhook URL of every realm with CIBA, by realm name. */
  webhooks: ReadonlyMap<string, string>;
  /** Receives one error per failed attempt; never the auth_req_id in full nor the URL's path. */
  report: ErrorReporter;
  fetch?: typeof globalThis.fetch;
  timers?: Timers;
  /** How long one attempt may take until the response headers. Default 5 s. */
  timeoutMs?: number;
  /** The waits before the 2nd, 3rd… attempt; its length + 1 is the number of attempts. */
  retryDelaysMs?: readonly number[];
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 4000];

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
 */
export class WebhookPush implements AuthenticatorPush {
  readonly #options: Required<Omit<WebhookPushOptions, 'webhooks' | 'report'>>;
  readonly #webhooks: ReadonlyMap<string, string>;
  readonly #report: ErrorReporter;
  /** Aborts every attempt and wait in progress when the server closes. */
  readonly #closing = new AbortController();

  constructor(options: WebhookPushOptions) {
    this.#webhooks = options.webhooks;
    this.#report = options.report;
    this.#options = {
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timers: options.timers ?? {
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      },
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    };
  }

  async notify(notification: CibaNotification): Promise<void> {
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
  }

  async #attempt(url: string, body: string): Promise<Failure | undefined> {
    const { fetch, timers, timeoutMs } = this.#options;
    // One controller per attempt, aborted by the timeout or by close. Not AbortSignal.any with
    // the closing signal: on Node 20 every signal made that way stays among the long-lived
    // signal's dependants, so each attempt would leak one for the life of the server.
    const attempt = new AbortController();
    let timedOut = false;
    const timer = timers.setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, timeoutMs);
    const onClose = () => attempt.abort();
    this.#closing.signal.addEventListener('abort', onClose, { once: true });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        // A webhook that moved is a configuration error, not something to follow with the payload.
        redirect: 'manual',
        signal: attempt.signal,
      });
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) return undefined;
      return { reason: `HTTP ${response.status}`, retry: response.status >= 500 };
    } catch (error) {
      if (this.#closing.signal.aborted) return { reason: 'the server is closing', retry: false };
      if (timedOut) return { reason: `no answer in ${timeoutMs} ms`, retry: true };
      return { reason: networkReason(error), retry: true };
    } finally {
      timers.clearTimeout(timer);
      this.#closing.signal.removeEventListener('abort', onClose);
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
 * fetch rejects with "fetch failed" and the socket error as its cause; only the error's code
 * is kept (the messages may quote the URL).
 */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  return `network error (${code ?? (error instanceof Error ? error.name : 'unknown')})`;
}
