import { SERVER_NAMES, type ServerName } from './server-names.js';
import type { GrantType } from './token-request.js';

/**
 * A benchmarked request: a token request of one grant, or a CIBA initiation; or the flood of
 * anonymous authorization requests whose memory `anonymous_memory` measures (anonymous-memory.ts).
 */
export type ScenarioName =
  | RequestScenarioName
  | typeof ANONYMOUS_MEMORY
  | typeof RESOURCE_SERVER_VERIFY
  | typeof DELEGATION_GRANTS;
/** The scenarios that load one request on the servers of SCENARIOS. */
export type RequestScenarioName =
  | GrantType
  | 'ciba_initiation'
  | typeof DPOP_CLIENT_CREDENTIALS
  | typeof PAR_AUTHORIZATION_CODE;

/** client_credentials with a fresh DPoP proof (RFC 9449) in each request. */
export const DPOP_CLIENT_CREDENTIALS = 'dpop_client_credentials';
/**
 * Pushed authorization requests (RFC 9126) and code exchanges in turn, one of each per pair: the
 * back-channel half of a PAR code flow (the browser's hop through the authorization endpoint
 * between them is not in it).
 */
export const PAR_AUTHORIZATION_CODE = 'par_authorization_code';

/** A million requests per server take minutes: run only when BENCH_SCENARIOS names it. */
export const ANONYMOUS_MEMORY = 'anonymous_memory';

/** The resource-server kit's JWT verification beside jose's, in process (resource-server-verify.ts). */
export const RESOURCE_SERVER_VERIFY = 'resource_server_verify';

/** Token exchange and jwt-bearer beside client_credentials, in process (delegation-grants.ts). */
export const DELEGATION_GRANTS = 'delegation_grants';

/**
 * The benchmarked requests and the servers measured on each. The ceiling (the bare route) takes
 * every request a floor is computed for (floor.ts), so each flow's floor has its bare route from
 * its own rounds: on this machine the speed moves within one run. Ours on PostgreSQL
 * and on Redis take the two requests the shared-store issue sets targets for; the standalone
 * server takes client_credentials, the one request it answers without its sign-in pages.
 * better-auth takes the user grants on PostgreSQL only: on its memory adapter every transaction
 * copies the whole database, so their cost would be that of the pool minted for them.
 */
export const SCENARIOS: ReadonlyMap<RequestScenarioName, readonly ServerName[]> = new Map<
  RequestScenarioName,
  readonly ServerName[]
>([
  // Every server answers client_credentials.
  ['client_credentials', SERVER_NAMES],
  [
    'authorization_code',
    [
      'ours',
      'ours-postgres',
      'ours-redis',
      'ceiling',
      'hand-written',
      'oidc-provider',
      'better-auth-postgres',
    ],
  ],
  ['refresh_token', ['ours', 'ceiling', 'hand-written', 'oidc-provider', 'better-auth-postgres']],
  ['ciba_initiation', ['ours', 'ceiling', 'oidc-provider']],
  [DPOP_CLIENT_CREDENTIALS, ['ours', 'oidc-provider']],
  [PAR_AUTHORIZATION_CODE, ['ours', 'oidc-provider']],
]);

/** What `pnpm bench` runs when BENCH_SCENARIOS is unset. */
export const DEFAULT_SCENARIOS: readonly ScenarioName[] = [
  ...SCENARIOS.keys(),
  RESOURCE_SERVER_VERIFY,
  DELEGATION_GRANTS,
];

export const SCENARIO_NAMES: readonly ScenarioName[] = [...DEFAULT_SCENARIOS, ANONYMOUS_MEMORY];

export const isScenarioName = (value: string): value is ScenarioName =>
  (SCENARIO_NAMES as readonly string[]).includes(value);
