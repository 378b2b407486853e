import { gatehouse } from '@gatehouse-oidc/hono';
import type { Hono } from 'hono';
import { contractMounts } from '../adapters/contract-setup.js';
import { honoHostApp } from '../adapters/hono-host.js';
import { SIGNING_PREFIX, signingProvider } from './signing-realms.js';

// What each runtime serves in test/runtimes (test/support/runtimes.ts bundles and serves it): the
// adapter contract's Hono host app, plus a realm per signing algorithm under SIGNING_PREFIX. Built
// on the first request: workerd refuses to generate keys or random values at module scope.
let app: Promise<Hono> | undefined;

async function build(): Promise<Hono> {
  const { mounts } = await contractMounts();
  return honoHostApp(mounts).route(SIGNING_PREFIX, gatehouse(signingProvider()));
}

export default {
  async fetch(request: Request): Promise<Response> {
    app ??= build();
    return (await app).fetch(request);
  },
};
