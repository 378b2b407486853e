import type { Provider } from '@gatehouse-oidc/core';
import { gatehouse, gatehouseWellKnown } from '@gatehouse-oidc/hono';
import { Hono } from 'hono';

// Imports no Node module: test/runtimes runs this host app on Bun, Deno and workerd.

/** Gatehouse mounted at `prefix` in a host app. */
export interface Mount {
  prefix: string;
  provider: Provider;
  /** Its realms' metadata is also answered at the host's root (RFC 8414 path insertion). */
  atHostRoot?: boolean;
}

export const HELLO = 'hello from the host app';

/** The Hono host app: `GET /hello`, `POST /echo` through Hono's JSON reader, and the mounts. */
export function honoHostApp(mounts: readonly Mount[]): Hono {
  const app = new Hono();
  app.get('/hello', (c) => c.text(HELLO));
  app.post('/echo', async (c) => c.json(await c.req.json()));
  for (const { prefix, provider, atHostRoot } of mounts) {
    if (atHostRoot) app.route('/', gatehouseWellKnown(provider));
    app.route(prefix, gatehouse(provider));
  }
  return app;
}
