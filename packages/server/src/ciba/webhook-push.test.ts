import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { boundedFetcher, type CibaNotification, fetchTransport } from '@gatehouse-oidc/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ErrorReporter } from '../report-error.js';
import { type Timers, WebhookPush, type WebhookPushOptions } from './webhook-push.js';

const AUTH_REQ_ID = 'Zq3f9Tn2Wk1Lx8Pa0Rb7Yc6Vd5Ue4Sf3Gh2Ji1Kl0M';
/** A webhook URL with a secret in its path and query, as some push services hand them out. */
const WEBHOOK = 'https://hooks.example.com/T0/s3cret-path?token=s3cret-query';

const NOTIFICATION: CibaNotification = {
  realm: 'demo',
  authReqId: AUTH_REQ_ID,
  sub: 'alice',
  clientId: 'ciba-app',
  clientName: 'Ciba App',
  scopes: ['openid', 'profile'],
  bindingMessage: 'Order 4711',
  expiresAt: 1_900_000_120,
};

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;

let fetchMock: FetchMock;
let reports: { error: unknown; request: unknown }[];
/** Every delay the push asked a timer for, in order. */
let delays: number[];

const report: ErrorReporter = (error, request) => {
  reports.push({ error, request });
};

/** The global timers, faked by vitest, recorded on the way. */
const recordingTimers: Timers = {
  setTimeout(callback, ms) {
    delays.push(ms);
    return setTimeout(callback, ms);
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

function push(options: Partial<WebhookPushOptions> = {}) {
  return new WebhookPush({
    webhooks: new Map([['demo', WEBHOOK]]),
    report,
    fetcher: boundedFetcher(fetchTransport(fetchMock)),
    timers: recordingTimers,
    ...options,
  });
}

/** Runs `notify` to its end, firing every timer it sets on the fake clock. */
async function deliver(webhookPush: WebhookPush, notification = NOTIFICATION) {
  const started = Date.now();
  const done = webhookPush.notify(notification);
  await vi.runAllTimersAsync();
  await expect(done).resolves.toBeUndefined();
  return { elapsedMs: Date.now() - started };
}

const answer = (status: number) => new Response(status === 204 ? null : 'body', { status });
const messages = () => reports.map(({ error }) => (error as Error).message);

/** A fetch rejection as undici produces it for a refused connection. */
function refused(): Error {
  const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), {
    code: 'ECONNREFUSED',
  });
  return new TypeError('fetch failed', { cause });
}

beforeEach(() => {
  vi.useFakeTimers();
  fetchMock = vi.fn<typeof fetch>();
  reports = [];
  delays = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('WebhookPush: the request it sends', () => {
  it('POSTs the JSON of the contract to the realm webhook, without following redirects', async () => {
    fetchMock.mockResolvedValue(answer(204));
    await deliver(push());
    expect(fetchMock).toHaveBeenCalledOnce();
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe(WEBHOOK);
    expect(init).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      redirect: 'manual',
    });
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(String(init?.body))).toStrictEqual({
      realm: 'demo',
      auth_req_id: AUTH_REQ_ID,
      sub: 'alice',
      client_id: 'ciba-app',
      client_name: 'Ciba App',
      scope: 'openid profile',
      binding_message: 'Order 4711',
      expires_at: 1_900_000_120,
    });
    expect(reports).toEqual([]);
  });

  it('sends null for a client without a name and a request without a binding message', async () => {
    fetchMock.mockResolvedValue(answer(200));
    const { clientName: _name, bindingMessage: _message, ...bare } = NOTIFICATION;
    await deliver(push(), bare);
    const body = JSON.parse(String(fetchMock.mock.calls[0]?.[1]?.body));
    expect(body).toMatchObject({ client_name: null, binding_message: null });
    expect(Object.keys(body)).toHaveLength(8);
  });

  it("uses each realm's own webhook", async () => {
    fetchMock.mockResolvedValue(answer(204));
    const webhooks = new Map([
      ['demo', WEBHOOK],
      ['other', 'http://127.0.0.1:9999/push'],
    ]);
    await deliver(push({ webhooks }), { ...NOTIFICATION, realm: 'other' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('http://127.0.0.1:9999/push');
  });

  it('reports a realm without a webhook and sends nothing', async () => {
    await deliver(push(), { ...NOTIFICATION, realm: 'nowhere' });
    expect(fetchMock).not.toHaveBeenCalled();
    expect(messages()).toEqual([
      `CIBA push for realm "nowhere", auth_req_id Zq3f9T…: the realm has no webhook_url (attempt 1 of 3); not sent`,
    ]);
  });
});

describe('WebhookPush: failures', () => {
  it('retries a 5xx after 1 s, reports it, and stops at the first 2xx', async () => {
    fetchMock.mockResolvedValueOnce(answer(503)).mockResolvedValueOnce(answer(201));
    const { elapsedMs } = await deliver(push());
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(elapsedMs).toBe(1000);
    expect(messages()).toEqual([
      'CIBA push for realm "demo", auth_req_id Zq3f9T… to https://hooks.example.com: HTTP 503 (attempt 1 of 3); retrying in 1000 ms',
    ]);
    expect(reports[0]?.error).toMatchObject({ name: 'WebhookPushError' });
    // One line on stderr: the stack of an operational failure would only be noise.
    expect(reports[0]?.error).toHaveProperty('stack', `WebhookPushError: ${messages()[0]}`);
    expect(reports[0]?.request).toBeUndefined();
  });

  it('retries network errors with backoff, then gives up after three attempts', async () => {
    fetchMock.mockRejectedValue(refused());
    const { elapsedMs } = await deliver(push());
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(elapsedMs).toBe(5000);
    expect(messages()).toEqual([
      expect.stringMatching(
        /: network error \(ECONNREFUSED\) \(attempt 1 of 3\); retrying in 1000 ms$/,
      ),
      expect.stringMatching(
        /: network error \(ECONNREFUSED\) \(attempt 2 of 3\); retrying in 4000 ms$/,
      ),
      expect.stringMatching(/: network error \(ECONNREFUSED\) \(attempt 3 of 3\); giving up$/),
    ]);
  });

  it.each([400, 401, 404, 410, 302])('does not retry HTTP %i', async (status) => {
    fetchMock.mockResolvedValue(answer(status));
    await deliver(push());
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(messages()).toEqual([
      // A redirect is answered, never followed: the fetcher says so.
      expect.stringMatching(
        new RegExp(`: (answered )?HTTP ${status}\\b[^;]*\\(attempt 1 of 3\\); not retried$`),
      ),
    ]);
  });

  it('aborts an attempt that gets no answer within the timeout, and retries it', async () => {
    const signals: AbortSignal[] = [];
    fetchMock.mockImplementation((_url, init) => {
      const signal = init?.signal as AbortSignal;
      signals.push(signal);
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason)),
      );
    });
    const { elapsedMs } = await deliver(push({ timeoutMs: 2000, retryDelaysMs: [500] }));
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(elapsedMs).toBe(2000 + 500 + 2000);
    // The timeouts are the fetcher's; the push's own timers wait between attempts.
    expect(delays).toEqual([500]);
    expect(messages()).toEqual([
      expect.stringMatching(/: no answer in 2000 ms \(attempt 1 of 2\); retrying in 500 ms$/),
      expect.stringMatching(/: no answer in 2000 ms \(attempt 2 of 2\); giving up$/),
    ]);
  });

  it('never reports the auth_req_id in full, nor the path or query of the webhook', async () => {
    fetchMock.mockRejectedValueOnce(refused()).mockResolvedValueOnce(answer(500));
    await deliver(push({ retryDelaysMs: [10] }));
    expect(reports).toHaveLength(2);
    for (const { error } of reports) {
      const text = `${(error as Error).message}\n${(error as Error).stack}`;
      expect(text).not.toContain(AUTH_REQ_ID.slice(0, 7));
      expect(text).not.toContain('s3cret');
      expect(text).toContain('https://hooks.example.com');
    }
  });

  it('resolves even when the reporter throws', async () => {
    fetchMock.mockResolvedValue(answer(500));
    const throwing: ErrorReporter = () => {
      throw new Error('reporter down');
    };
    await deliver(push({ report: throwing, retryDelaysMs: [] }));
    expect(fetchMock).toHaveBeenCalledOnce();
  });

  it('stops at close: the attempt in progress is abandoned and nothing more is sent', async () => {
    let signal: AbortSignal | undefined;
    fetchMock.mockImplementation((_url, init) => {
      signal = init?.signal as AbortSignal;
      return new Promise((_resolve, reject) =>
        signal?.addEventListener('abort', () => reject(signal?.reason)),
      );
    });
    const webhookPush = push();
    const done = webhookPush.notify(NOTIFICATION);
    await vi.advanceTimersByTimeAsync(100);
    webhookPush.close();
    await expect(done).resolves.toBeUndefined();
    expect(signal?.aborted).toBe(true);
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(messages()).toEqual([
      expect.stringMatching(/: the server is closing \(attempt 1 of 3\); abandoned$/),
    ]);
    await webhookPush.notify(NOTIFICATION);
    expect(fetchMock).toHaveBeenCalledOnce();
  });

  it('ends a wait between attempts at close', async () => {
    fetchMock.mockResolvedValue(answer(502));
    const webhookPush = push();
    const done = webhookPush.notify(NOTIFICATION);
    await vi.advanceTimersByTimeAsync(10);
    webhookPush.close();
    await expect(done).resolves.toBeUndefined();
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(messages().at(-1)).toMatch(/: the server is closing \(attempt 2 of 3\); not sent$/);
  });
});

describe('WebhookPush: the closing signal', () => {
  /**
   * Runs `scenario` recording the targets the push listens to for 'abort', and hands it the one
   * that is not a fetch's signal: the push's closing signal, which lives as long as the server.
   */
  async function watchClosing(
    scenario: (fetchSignals: AbortSignal[], closing: () => EventTarget) => Promise<void>,
  ) {
    const listenedTo = new Set<EventTarget>();
    const fetchSignals: AbortSignal[] = [];
    const add = EventTarget.prototype.addEventListener;
    const spy = vi.spyOn(EventTarget.prototype, 'addEventListener').mockImplementation(function (
      this: EventTarget,
      type,
      ...rest
    ) {
      if (type === 'abort') listenedTo.add(this);
      return add.call(this, type, ...rest);
    });
    const closing = () => {
      const others = [...listenedTo].filter(
        (target) => !fetchSignals.includes(target as AbortSignal),
      );
      expect(others).toHaveLength(1);
      return others[0] as EventTarget;
    };
    try {
      await scenario(fetchSignals, closing);
    } finally {
      spy.mockRestore();
    }
  }

  /** How many signals Node's AbortSignal.any has derived from `signal` (0 where Node keeps no such set). */
  function dependants(signal: EventTarget): number {
    const key = Object.getOwnPropertySymbols(signal).find(
      (symbol) => symbol.description === 'kDependantSignals',
    );
    // Node's own Set (a primordial), so not `instanceof Set` here.
    const set =
      key === undefined
        ? undefined
        : (signal as unknown as Record<symbol, { size?: unknown }>)[key];
    return typeof set?.size === 'number' ? set.size : 0;
  }

  /** A fetch that records its signal and answers as `answer` says, or hangs until aborted. */
  function recordingFetch(
    fetchSignals: AbortSignal[],
    answer: (attempt: number) => Response | Error | 'hang',
  ) {
    fetchMock.mockImplementation((_url, init) => {
      const signal = init?.signal as AbortSignal;
      fetchSignals.push(signal);
      const outcome = answer(fetchSignals.length);
      if (outcome instanceof Response) return Promise.resolve(outcome);
      if (outcome instanceof Error) return Promise.reject(outcome);
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    });
  }

  it('listens to it during an attempt only, and derives no signal from it, whether the attempt answers, fails or times out', async () => {
    await watchClosing(async (fetchSignals, closing) => {
      let during: number | undefined;
      recordingFetch(fetchSignals, (attempt) => {
        during ??= getEventListeners(closing(), 'abort').length;
        return [answer(503), refused(), 'hang' as const, answer(204)][attempt - 1] ?? answer(204);
      });
      const webhookPush = push({ timeoutMs: 2000, retryDelaysMs: [10, 10, 10] });
      for (let run = 0; run < 3; run++) await deliver(webhookPush);
      expect(fetchMock).toHaveBeenCalledTimes(6);
      expect(during).toBe(1);
      expect(getEventListeners(closing(), 'abort')).toHaveLength(0);
      // Node 20 keeps the signals AbortSignal.any made from it here, for as long as it lives.
      expect(dependants(closing())).toBe(0);
      expect(messages()).toEqual([
        expect.stringMatching(/: HTTP 503 \(attempt 1 of 4\); retrying in 10 ms$/),
        expect.stringMatching(
          /: network error \(ECONNREFUSED\) \(attempt 2 of 4\); retrying in 10 ms$/,
        ),
        expect.stringMatching(/: no answer in 2000 ms \(attempt 3 of 4\); retrying in 10 ms$/),
      ]);
    });
  });

  it('still aborts the attempt in progress at close, and then leaves no listener', async () => {
    await watchClosing(async (fetchSignals, closing) => {
      recordingFetch(fetchSignals, () => 'hang');
      const webhookPush = push();
      const done = webhookPush.notify(NOTIFICATION);
      await vi.advanceTimersByTimeAsync(100);
      expect(getEventListeners(closing(), 'abort')).toHaveLength(1);
      webhookPush.close();
      await expect(done).resolves.toBeUndefined();
      expect(fetchSignals.map((signal) => signal.aborted)).toEqual([true]);
      expect(getEventListeners(closing(), 'abort')).toHaveLength(0);
    });
  });
});

describe('WebhookPush: bounded per realm', () => {
  /** A fetch whose answers the test gives, one per call, in order; aborted as fetch is. */
  function heldFetch() {
    const answers: ((response: Response) => void)[] = [];
    fetchMock.mockImplementation(
      (_url, init) =>
        new Promise<Response>((resolve, reject) => {
          answers.push(resolve);
          init?.signal?.addEventListener('abort', () => reject(new DOMException('', 'AbortError')));
        }),
    );
    return { answerNext: () => answers.shift()?.(answer(204)) };
  }
  const other = (authReqId: string, realm = 'demo') => ({ ...NOTIFICATION, realm, authReqId });

  it('delivers maxConcurrentPerRealm at once, queues maxQueuedPerRealm, and refuses beyond', async () => {
    const held = heldFetch();
    const webhookPush = push({
      maxConcurrentPerRealm: 2,
      maxQueuedPerRealm: 1,
      webhooks: new Map([
        ['demo', WEBHOOK],
        ['staff', WEBHOOK],
      ]),
    });
    const pushes = ['a', 'b', 'c'].map((id) => webhookPush.notify(other(`${id}${AUTH_REQ_ID}`)));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(webhookPush.accepts('demo')).toBe(false);
    expect(webhookPush.accepts('demo')).toBe(false);
    // Another realm has lanes of its own.
    expect(webhookPush.accepts('staff')).toBe(true);
    // Said once, not at every refusal.
    expect(messages()).toEqual([
      'CIBA pushes for realm "demo": 2 in progress and 1 waiting; new requests are refused until the webhook catches up',
    ]);
    // One that got past `accepts` while the queue filled up is dropped and reported.
    await webhookPush.notify(other(`d${AUTH_REQ_ID}`));
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(messages()[1]).toBe(
      'CIBA push for realm "demo", auth_req_id dZq3f9…: the queue is full; not sent',
    );
    held.answerNext();
    await vi.advanceTimersByTimeAsync(0);
    // The queued push takes the freed slot; the queue has room again.
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(webhookPush.accepts('demo')).toBe(true);
    held.answerNext();
    held.answerNext();
    await Promise.all(pushes);
    expect(messages()).toHaveLength(2);
  });

  it('reports the queued pushes as not sent at close', async () => {
    heldFetch();
    const webhookPush = push({ maxConcurrentPerRealm: 1, maxQueuedPerRealm: 5 });
    const running = webhookPush.notify(other(`a${AUTH_REQ_ID}`));
    const queued = webhookPush.notify(other(`b${AUTH_REQ_ID}`));
    await vi.advanceTimersByTimeAsync(0);
    webhookPush.close();
    await Promise.all([running, queued]);
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(messages().sort()).toEqual([
      expect.stringMatching(/auth_req_id aZq3f9… .*the server is closing .*abandoned$/),
      expect.stringMatching(/auth_req_id bZq3f9… .*the server is closing .*not sent$/),
    ]);
  });
});

describe('WebhookPush over the network', () => {
  it('names the socket error of a refused connection', async () => {
    vi.useRealTimers();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const webhookPush = new WebhookPush({
      webhooks: new Map([['demo', `http://127.0.0.1:${port}/push`]]),
      report,
      fetcher: boundedFetcher(fetchTransport()),
      retryDelaysMs: [],
    });
    await webhookPush.notify(NOTIFICATION);
    expect(messages()).toEqual([
      `CIBA push for realm "demo", auth_req_id Zq3f9T… to http://127.0.0.1:${port}: network error (ECONNREFUSED) (attempt 1 of 1); giving up`,
    ]);
  });
});
