import type { ServerName } from '../server-names.js';
import { startBetterAuth } from './better-auth.js';
import { betterAuthMemory, betterAuthPostgres } from './better-auth-databases.js';
import { startCeiling } from './ceiling.js';
import { startHandWritten } from './hand-written.js';
import { startOidcProvider } from './oidc-provider.js';
import { startOurs } from './ours.js';
import type { RunningServer } from './running-server.js';
import { startStandaloneServer } from './standalone.js';
import { postgresStore, redisStore } from './stores.js';

/**
 * Every benchmarked server by name: what a child process starts when the parent asks. The store
 * servers throw ServiceUnavailableError when their service does not answer.
 */
export const SERVERS: ReadonlyMap<ServerName, () => Promise<RunningServer>> = new Map([
  ['ours', () => startOurs()],
  ['ours-postgres', async () => startOurs(await postgresStore())],
  ['ours-redis', async () => startOurs(await redisStore())],
  ['ours-standalone', startStandaloneServer],
  ['ceiling', startCeiling],
  ['hand-written', startHandWritten],
  ['oidc-provider', startOidcProvider],
  ['better-auth', () => startBetterAuth(betterAuthMemory())],
  ['better-auth-postgres', async () => startBetterAuth(await betterAuthPostgres())],
]);
