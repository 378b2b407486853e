import type { AddressInfo } from 'node:net';
import {
  gatehouse as expressGatehouse,
  gatehouseWellKnown as expressWellKnown,
} from '@gatehouse-oidc/express';
import {
  gatehouse as fastifyGatehouse,
  gatehouseWellKnown as fastifyWellKnown,
} from '@gatehouse-oidc/fastify';
import { serve } from '@hono/node-server';
import express, { type RequestHandler } from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import Fastify4 from 'fastify4';
import { HELLO, honoHostApp, type Mount } from './hono-host.js';

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

/** A major version of Express, with the default export of its package. */
export interface ExpressMajor {
  name: string;
  express: typeof express;
}

/**
 * Every major the Express adapter supports (its peer range), newest first. The harness is typed
 * with Express 5's types; the adapter's source is type-checked against Express 4's on its own
 * (test/adapters/tsconfig.majors.json).
 */
export const EXPRESS_MAJORS: readonly ExpressMajor[] = [
  { name: 'express 5', express },
  { name: 'express 4', express: express4 as unknown as typeof express },
];

/** Express; `before` are host middlewares mounted for the whole app ahead of everything else. */
export function expressHarness(
  { name, express }: ExpressMajor,
  before?: { name: string; middleware: RequestHandler },
): AdapterHarness {
  return {
    name: before ? `${name} after ${before.name}` : name,
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
      for (const { prefix, provider, atHostRoot } of mounts) {
        if (atHostRoot) app.use(expressWellKnown(provider));
        app.use(prefix, expressGatehouse(provider));
      }
      return listening(app.listen(0, '127.0.0.1'));
    },
  };
}

/** A major version of Fastify, with the factory its package exports. */
export interface FastifyMajor {
  name: string;
  Fastify: typeof Fastify;
}

/** Every major the Fastify adapter supports, newest first; typed as EXPRESS_MAJORS is. */
export const FASTIFY_MAJORS: readonly FastifyMajor[] = [
  { name: 'fastify 5', Fastify },
  { name: 'fastify 4', Fastify: Fastify4 as unknown as typeof Fastify },
];

export const fastifyHarness = ({ name, Fastify }: FastifyMajor): AdapterHarness => ({
  name,
  async start(mounts) {
    const app = Fastify();
    app.get('/hello', async () => HELLO);
    app.post('/echo', async (request) => request.body);
    for (const { prefix, provider, atHostRoot } of mounts) {
      if (atHostRoot) await app.register(fastifyWellKnown, { provider });
      await app.register(fastifyGatehouse, { provider, prefix });
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin: originOf(app.server.address()), close: () => app.close() };
  },
});

export const honoHarness: AdapterHarness = {
  name: 'hono',
  async start(mounts) {
    const { fetch } = honoHostApp(mounts);
    return listening(serve({ fetch, port: 0, hostname: '127.0.0.1' }));
  },
};

/** One host app per adapter and supported major of its framework. */
export const HARNESSES: readonly AdapterHarness[] = [
  ...EXPRESS_MAJORS.map((major) => expressHarness(major)),
  ...FASTIFY_MAJORS.map(fastifyHarness),
  honoHarness,
];

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
