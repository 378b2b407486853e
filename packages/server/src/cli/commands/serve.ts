import type { AddressInfo } from 'node:net';
import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { buildServer, type Server } from '../../server.js';
import { createsSchemaOnStart, describeStore, storeErrorMessage, storeKind } from '../../store.js';
import { credentialLines, discoveryLines, startupWarnings } from '../banner.js';
import { closeOnSignals } from '../shutdown.js';
import { EXIT_USAGE, type Io, loadOrReport } from './io.js';
import { EXIT_MIGRATION_FAILED, migrateAndReport } from './migrate.js';

export interface ServeOptions {
  config: string;
  port?: number;
  host?: string;
}

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `gatehouse serve`: validates the config before anything listens, then serves until SIGTERM or
 * SIGINT. Resolves to an exit status when it could not start, to undefined once listening.
 */
export async function serve(options: ServeOptions, io: Io): Promise<number | undefined> {
  const config = await loadOrReport(options.config, io);
  if (!config) return EXIT_USAGE;
  for (const warning of startupWarnings(config)) io.err(warning);
  // Before anything listens: an instance never answers from a store without its schema.
  const migrates = createsSchemaOnStart(config);
  if (migrates && !(await migrateAndReport(config, io))) return EXIT_MIGRATION_FAILED;
  const server = buildServer(config, { schemaReady: migrates });
  const { app, store } = server;
  try {
    await app.listen({ port: options.port ?? config.port, host: options.host ?? config.host });
  } catch (error) {
    io.err(`cannot listen: ${error instanceof Error ? error.message : String(error)}`);
    await app.close();
    return 1;
  }
  const { address, port } = app.server.address() as AddressInfo;
  io.out(
    `gatehouse listening on http://${address.includes(':') ? `[${address}]` : address}:${port}`,
  );
  for (const line of discoveryLines(config)) io.out(line);
  if (storeKind(config.store) !== 'memory') {
    io.out(`store: ${describeStore(config.store)}`);
    // Not awaited: the server listens whatever the store's state, and /healthz tells the rest.
    store.ping().catch((error: unknown) => {
      const reason = storeErrorMessage(error, config.store);
      io.err(`warning: /healthz answers 503 until the store answers: ${reason}`);
    });
  }
  // Not awaited either: it reads every realm of the store, minutes' worth at 100,000 realms.
  void warnOfUnreadableRealms(server, options.config, config.store, io);
  if (config.print_credentials) for (const line of credentialLines(config)) io.out(line);
  closeOnSignals(app, {
    graceMs: SHUTDOWN_GRACE_MS,
    log: io.err,
    exit: (code) => process.exit(code),
  });
  return undefined;
}

/**
 * Tells, a paragraph each, of the realms of the admin API whose client secrets do not open with
 * this config's cookie_secret, once the server listens. The server serves meanwhile: those
 * realms answer 503 until a PUT with their secrets seals them under this key, which is how a
 * changed cookie_secret is taken up, and the other realms are served as usual. A store that does
 * not answer is told by /healthz.
 */
async function warnOfUnreadableRealms(
  server: Server,
  file: string,
  storeUrl: string,
  io: Io,
): Promise<void> {
  try {
    for (const problem of await server.unreadableRealms())
      io.err(`warning: ${file}: ${problem.message}`);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return;
    io.err(`warning: could not check the realms' secrets: ${storeErrorMessage(error, storeUrl)}`);
  }
}
