import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeOnSignals } from './shutdown.js';

let removeHandlers = () => {};
afterEach(() => removeHandlers());

it('cuts requests still running after the grace period, then exits 0', async () => {
  const app = Fastify();
  const onClose = vi.fn();
  app.addHook('onClose', async () => onClose());
  app.get('/hang', () => new Promise(() => {}));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;

  const exited = new Promise<number>((exit) => {
    removeHandlers = closeOnSignals(app, { graceMs: 100, log: () => {}, exit });
  });
  const hanging = new Promise<string>((resolve) => {
    request({ port, host: '127.0.0.1', path: '/hang', agent: false })
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? ''))
      .end();
  });
  await new Promise((resolve) => setTimeout(resolve, 50));

  const started = Date.now();
  process.emit('SIGINT', 'SIGINT');
  expect(await hanging).toBe('ECONNRESET');
  expect(await exited).toBe(0);
  expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  expect(onClose).toHaveBeenCalledOnce();
});

/** An app whose onClose hook never finishes, as `pool.end()` against a silent network. */
function appClosingForever() {
  const app = Fastify();
  app.addHook('onClose', () => new Promise<void>(() => {}));
  return app;
}

describe('when closing does not finish', () => {
  const logged: string[] = [];
  const exit = vi.fn<(code: number) => void>();
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    logged.length = 0;
    exit.mockReset();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const log = (line: string) => logged.push(line);

  it('exits 1 at the deadline, saying so', async () => {
    removeHandlers = closeOnSignals(appClosingForever(), {
      graceMs: 50,
      deadlineMs: 200,
      log,
      exit,
    });
    process.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(199);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit.mock.calls).toEqual([[1]]);
    expect(logged).toEqual([
      'SIGTERM received: finishing in-flight requests, then stopping',
      'requests still running after 50 ms: closing their connections',
      'shutdown not finished after 200 ms (the store may not be answering): exiting',
    ]);
  });

  it('sets the deadline 5 s after the grace period by default', async () => {
    removeHandlers = closeOnSignals(appClosingForever(), { graceMs: 10_000, log, exit });
    process.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(14_999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit.mock.calls).toEqual([[1]]);
  });

  it('exits 1 at once on a second signal, and only once', async () => {
    removeHandlers = closeOnSignals(appClosingForever(), {
      graceMs: 100,
      deadlineMs: 500,
      log,
      exit,
    });
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(exit.mock.calls).toEqual([[1]]);
    expect(logged).toEqual([
      'SIGTERM received: finishing in-flight requests, then stopping',
      'SIGINT received again: exiting without finishing',
    ]);
    // The grace period's and the deadline's timers went with it.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(exit).toHaveBeenCalledOnce();
    expect(logged).toHaveLength(2);
  });
});
