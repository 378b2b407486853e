import type { AddressInfo } from 'node:net';
import type { Provider } from '@gatehouse/core';
import { gatehouse as expressGatehouse } from '@gatehouse/express';
import { gatehouse as fastifyGatehouse } from '@gatehouse/fastify';
import { gatehouse as honoGatehouse } from '@gatehouse/hono';
import { serve } from '@hono/node-server';
import express, { type RequestHandler } from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

/** Gatehouse mounted at `prefix` in a host app. */
export interface Mount {
  prefix: string;
  provider: Provider;
}

export interface RunningApp {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  origin: string;
  close(): Promise<void>;
}

/**
 * A host application of one framework with routes of its own — `GET /hello` and `POST /echo`
 * through the framework's own JSON parser — and Gatehouse mounted next to them.
 */
export interface AdapterHarness {
  name: string;
  start(mounts: readonly Mount[]): Promise<RunningApp>;
}

export const HELLO = 'hello from the host app';

/** Express; `before` are host middlewares mounted for the whole app ahead of everything else. */
export function expressHarness(before?: {
  name: string;
  middleware: RequestHandler;
}): AdapterHarness {
  return {
    name: before ? `express after ${before.name}` : 'express',
    async start(mounts) {
      const app = express();
      if (before) app.use(before.middleware);
      app.use(express.json());
      app.get('/hello', (_req, res) => {
        res.send(HELLO);
      });
      app.post('/echo', (req, res) => {
        res.json(req.body);
      });
      for (const { prefix, provider } of mounts) app.use(prefix, expressGatehouse(provider));
      return listening(app.listen(0, '127.0.0.1'));
    },
  };
}

export const fastifyHarness: AdapterHarness = {
  name: 'fastify',
  async start(mounts) {
    const app = Fastify();
    app.get('/hello', async () => HELLO);
    app.post('/echo', async (request) => request.body);
    for (const { prefix, provider } of mounts)
      await app.register(fastifyGatehouse, { provider, prefix });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin: originOf(app.server.address()), close: () => app.close() };
  },
};

export const honoHarness: AdapterHarness = {
  name: 'hono',
  async start(mounts) {
    const app = new Hono();
    app.get('/hello', (c) => c.text(HELLO));
    app.post('/echo', async (c) => c.json(await c.req.json()));
    for (const { prefix, provider } of mounts) app.route(prefix, honoGatehouse(provider));
    return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }));
  },
};

export const HARNESSES: readonly AdapterHarness[] = [expressHarness(), fastifyHarness, honoHarness];

interface NodeServer {
  once(event: 'listening', listener: () => void): unknown;
  address(): AddressInfo | string | null;
  close(callback: (error?: Error) => void): unknown;
  closeAllConnections?(): void;
  listening: boolean;
}

async function listening(server: NodeServer): Promise<RunningApp> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    origin: originOf(server.address()),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections?.();
      }),
  };
}

function originOf(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return `http://127.0.0.1:${address.port}`;
}
