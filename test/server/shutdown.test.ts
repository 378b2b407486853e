import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, expect, it, vi } from 'vitest';
import { closeOnSignals } from '../../packages/server/src/shutdown.js';

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
