import type { ServerName } from '../server-names.js';
import { startCeiling } from './ceiling.js';
import { startOidcProvider } from './oidc-provider.js';
import { startOurs } from './ours.js';
import type { RunningServer } from './running-server.js';

/** Every benchmarked server by name: what a child process starts when the parent asks. */
export const SERVERS: ReadonlyMap<ServerName, () => Promise<RunningServer>> = new Map([
  ['ours', startOurs],
  ['ceiling', startCeiling],
  ['oidc-provider', startOidcProvider],
]);
