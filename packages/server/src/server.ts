import {
  createProvider,
  type JwsSigner,
  MemoryStore,
  type Provider,
  type Store,
} from '@gatehouse/core';
import { gatehouse } from '@gatehouse/fastify';
import { nodeCryptoSigner } from '@gatehouse/node-crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminRoutes } from './admin.js';
import { providerRealm, type ServerConfig } from './config.js';
import { healthRoutes } from './health.js';
import { type ErrorReporter, reportToStderr } from './report-error.js';

export interface ServerOptions {
  /** Replaces the store named in the config (tests inject failing stores). */
  store?: Store;
  signer?: JwsSigner;
  /** Unexpected errors; by default one entry on stderr, never with request data. */
  report?: ErrorReporter;
  /** How long `/healthz` waits for the store. Default 2 s. */
  healthTimeoutMs?: number;
}

export interface Server {
  app: FastifyInstance;
  provider: Provider;
}

/**
 * The standalone server: Gatehouse mounted at the root of a Fastify app (so realm R's issuer is
 * `{base_url}/oauth/R`), plus `/healthz` and, when an admin_token is set, `/admin/*`.
 * Closing the app closes the provider and its store.
 */
export function buildServer(config: ServerConfig, options: ServerOptions = {}): Server {
  const report = options.report ?? reportToStderr;
  const provider = createProvider({
    baseUrl: config.base_url,
    realms: config.realms.map(providerRealm),
    store: options.store ?? new MemoryStore(),
    signer: options.signer ?? nodeCryptoSigner(),
    onError: report,
  });
  // No logger: request logs would carry credentials (Authorization headers, form bodies).
  const app = Fastify({ logger: false });
  app.addHook('onClose', () => provider.close());
  app.register(healthRoutes, { store: provider.store, timeoutMs: options.healthTimeoutMs ?? 2000 });
  if (config.admin_token !== undefined) {
    app.register(adminRoutes, { prefix: '/admin', provider, token: config.admin_token, report });
  }
  app.register(gatehouse, { provider });
  return { app, provider };
}
