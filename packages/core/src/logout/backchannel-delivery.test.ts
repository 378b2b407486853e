import { describe, expect, it } from 'vitest';
import { boundedFetcher } from '../outbound/bounded-fetcher.js';
import { fetchTransport } from '../outbound/fetch-transport.js';
import { BackchannelDelivery, BackchannelLogoutError } from './backchannel-delivery.js';

const TARGET = { uri: 'https://rp.example.com/bcl', label: 'client "rp" of realm "demo"' };
const TOKEN = 'header.payload.signature';
const issue = () => Promise.resolve(TOKEN);

/** A fetch that answers each call with the next of `answers` (a status, or a thrown error). */
function scripted(answers: Array<number | Error | 'hang'>) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetchImpl = (async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    const answer = answers[calls.length - 1] ?? 500;
    if (answer === 'hang') {
      return new Promise((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    }
    if (answer instanceof Error) throw answer;
    return new Response(answer === 204 ? null : 'x'.repeat(1_000_000), { status: answer });
  }) as typeof fetch;
  return { calls, fetchImpl };
}

function delivery(answers: Array<number | Error | 'hang'>, attempts = 3) {
  const reported: unknown[] = [];
  const { calls, fetchImpl } = scripted(answers);
  const bcl = new BackchannelDelivery(
    (error) => reported.push(error),
    { attempts, firstBackoffMs: 1, timeoutMs: 50 },
    boundedFetcher(fetchTransport(fetchImpl)),
  );
  return { bcl, calls, reported };
}

describe('BackchannelDelivery', () => {
  it('POSTs the token as the logout_token form field, without following redirects', async () => {
    const { bcl, calls, reported } = delivery([200]);
    expect(await bcl.deliver(TARGET, issue)).toBeUndefined();
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0] ?? { url: '', init: undefined };
    expect(url).toBe(TARGET.uri);
    expect(init).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `logout_token=${TOKEN}`,
      redirect: 'manual',
    });
    expect(reported).toEqual([]);
  });

  it('takes 204 as delivered too', async () => {
    expect(await delivery([204]).bcl.deliver(TARGET, issue)).toBeUndefined();
  });

  it('retries network failures, timeouts and 5xx, then succeeds', async () => {
    const { bcl, calls, reported } = delivery([new Error('ECONNREFUSED'), 'hang', 503, 200], 4);
    expect(await bcl.deliver(TARGET, issue)).toBeUndefined();
    expect(calls).toHaveLength(4);
    expect(reported).toEqual([]);
  });

  it('gives up after the last attempt and reports once, naming the client but not the token', async () => {
    const { bcl, calls, reported } = delivery([500, 502, 'hang']);
    expect(await bcl.deliver(TARGET, issue)).toBe('gave no complete answer within 50 ms');
    expect(calls).toHaveLength(3);
    expect(reported).toHaveLength(1);
    const error = reported[0] as Error;
    expect(error).toBeInstanceOf(BackchannelLogoutError);
    expect(error.message).toBe(
      'back-channel logout to client "rp" of realm "demo" failed: gave no complete answer within 50 ms',
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it.each([400, 401, 404, 302])(
    'does not retry HTTP %i, which another attempt would not change',
    async (status) => {
      const { bcl, calls, reported } = delivery([status, 200]);
      // A redirect is not followed: the answer says so.
      expect(await bcl.deliver(TARGET, issue)).toMatch(new RegExp(`^answered HTTP ${status}\\b`));
      expect(calls).toHaveLength(1);
      expect((reported[0] as Error).message).toMatch(new RegExp(`answered HTTP ${status}\\b`));
    },
  );

  it('posts any notice with its own headers, and leaves reporting a failure to the caller', async () => {
    const { bcl, calls, reported } = delivery([500, 500]);
    const notice = {
      headers: { 'content-type': 'application/json', authorization: 'Bearer t0ken' },
      body: '{"auth_req_id":"r"}',
    };
    expect(await bcl.post(TARGET.uri, () => Promise.resolve(notice))).toBe('answered HTTP 500');
    expect(calls.map(({ init }) => [init?.headers, init?.body])).toEqual([
      [notice.headers, notice.body],
      [notice.headers, notice.body],
      [notice.headers, notice.body],
    ]);
    expect(reported).toEqual([]);
  });

  it('retries 429', async () => {
    const { bcl, calls } = delivery([429, 200]);
    expect(await bcl.deliver(TARGET, issue)).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it("makes each attempt's token when the attempt has its turn, so none waits in the queue", async () => {
    const releases: Array<() => void> = [];
    const sent: string[] = [];
    const fetchImpl = (async (_url: string, init?: RequestInit) => {
      sent.push(String(init?.body));
      await new Promise<void>((resolve) => releases.push(resolve));
      return new Response(null, { status: 503 });
    }) as typeof fetch;
    const bcl = new BackchannelDelivery(
      () => {},
      { concurrent: 1, attempts: 2, firstBackoffMs: 1 },
      boundedFetcher(fetchTransport(fetchImpl)),
    );
    let made = 0;
    const fresh = async () => `token-${++made}`;
    const first = bcl.deliver(TARGET, fresh);
    const queued = bcl.deliver(TARGET, fresh);
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The queued delivery has not made its token while the first attempt holds the one place.
    expect(made).toBe(1);
    while (sent.length < 4) {
      releases.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    releases.shift()?.();
    expect(await Promise.all([first, queued])).toEqual(['answered HTTP 503', 'answered HTTP 503']);
    // Four attempts, four tokens: a retry is sent a new one too.
    expect(new Set(sent).size).toBe(4);
  });

  it('passes its place on when the token cannot be made, and rejects', async () => {
    const { calls, fetchImpl } = scripted([204]);
    const bcl = new BackchannelDelivery(
      () => {},
      { concurrent: 1 },
      boundedFetcher(fetchTransport(fetchImpl)),
    );
    await expect(bcl.deliver(TARGET, () => Promise.reject(new Error('no key')))).rejects.toThrow(
      'no key',
    );
    // With the one place still taken, this delivery would wait for ever.
    expect(await bcl.deliver(TARGET, issue)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('gives one receiver at most `concurrentPerReceiver` places, so one that never answers does not hold up the others', async () => {
    const releases: Array<() => void> = [];
    const calls: string[] = [];
    const fetchImpl = (async (url: string) => {
      calls.push(new URL(url).host);
      if (url.startsWith('https://stuck.example.com/'))
        await new Promise<void>((resolve) => releases.push(resolve));
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const bcl = new BackchannelDelivery(
      () => {},
      { concurrent: 3, concurrentPerReceiver: 2, timeoutMs: 1000 },
      boundedFetcher(fetchTransport(fetchImpl)),
    );
    const stuck = { uri: 'https://stuck.example.com/bcl', label: 'client "stuck"' };
    const other = { uri: 'https://other.example.com/bcl', label: 'client "other"' };
    const waiting = [1, 2, 3, 4].map(() => bcl.deliver(stuck, issue));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual(['stuck.example.com', 'stuck.example.com']);
    // A place is left for another receiver, and its tokens go at once.
    expect(await bcl.deliver(other, issue)).toBeUndefined();
    expect(await bcl.deliver(other, issue)).toBeUndefined();
    expect(calls.filter((host) => host === 'stuck.example.com')).toHaveLength(2);
    while (releases.length > 0 || calls.length < 6) {
      for (const release of releases.splice(0)) release();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await Promise.all(waiting)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('keeps `concurrent` attempts in flight, queues `waiting` more and refuses the rest at once', async () => {
    const releases: Array<() => void> = [];
    let calls = 0;
    const fetchImpl = (async () => {
      calls += 1;
      await new Promise<void>((resolve) => releases.push(resolve));
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const reported: unknown[] = [];
    const bcl = new BackchannelDelivery(
      (error) => reported.push(error),
      { concurrent: 2, waiting: 1, timeoutMs: 1000 },
      boundedFetcher(fetchTransport(fetchImpl)),
    );
    const deliveries = [1, 2, 3, 4].map(() => bcl.deliver(TARGET, issue));
    expect(await deliveries[3]).toBe('too many back-channel notifications waiting');
    expect(reported).toHaveLength(1);
    expect(calls).toBe(2);
    releases.shift()?.();
    await deliveries[0];
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toBe(3);
    for (const release of releases.splice(0)) release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (const release of releases.splice(0)) release();
    expect(await Promise.all(deliveries.slice(0, 3))).toEqual([undefined, undefined, undefined]);
  });
});
