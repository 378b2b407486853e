import { CIBA_HINTS, checkCibaInitiation, cibaRequestBody } from './ciba-request.js';
import type { LaunchedServer } from './launch.js';
import type { RequestBodies } from './load.js';
import type { RequestScenarioName } from './scenarios.js';
import {
  checkSpent,
  checkTokenEndpoint,
  isUserGrant,
  TOKEN_REQUEST_BODY,
  tokenRequestBody,
} from './token-request.js';

/** How one scenario loads one server: where to, what to check first, and what to send. */
export interface ScenarioRequests {
  readonly url: string;
  /** Fails unless the server answers one request of the scenario correctly; run before any load. */
  check(): Promise<void>;
  /** The bodies of a run of `seconds`: the fixed one, one per credential of a fresh pool, or a few in turn. */
  bodiesFor(seconds: number): Promise<RequestBodies>;
}

export interface PoolSettings {
  /** Requests per second a pool of one-time credentials is minted for (see settings.ts). */
  readonly poolRate: number;
  readonly connections: number;
}

export function scenarioRequests(
  scenario: RequestScenarioName,
  server: LaunchedServer,
  settings: PoolSettings,
  log: (line: string) => void,
): ScenarioRequests {
  const tokenUrl = server.baseUrl + server.tokenPath;
  if (scenario === 'ciba_initiation') return cibaInitiation(server);
  if (!isUserGrant(scenario)) {
    return {
      url: tokenUrl,
      check: async () => {
        await checkTokenEndpoint(server);
      },
      bodiesFor: async () => ({ kind: 'fixed', body: TOKEN_REQUEST_BODY }),
    };
  }
  return {
    url: tokenUrl,
    async check() {
      const [credential = ''] = await server.mint(scenario, 1);
      await checkTokenEndpoint(server, scenario, credential);
      await checkSpent(server, scenario, credential);
    },
    async bodiesFor(seconds) {
      const count = seconds * settings.poolRate + settings.connections;
      const started = performance.now();
      const credentials = await server.mint(scenario, count);
      const elapsed = (performance.now() - started) / 1000;
      log(`minted ${count} ${scenario} credentials in ${elapsed.toFixed(1)} s`);
      return {
        kind: 'one-time',
        pool: credentials.map((credential) => Buffer.from(tokenRequestBody(scenario, credential))),
      };
    },
  };
}

/**
 * CIBA initiations naming the bench user by ID tokens the server issued to the web client
 * (minted once, through a code exchange each); the requests take them in turn. The check also
 * requires that the server handed its one request to its authenticator push.
 */
function cibaInitiation(server: LaunchedServer): ScenarioRequests {
  if (server.backchannelPath === undefined) throw new Error('the server has no CIBA endpoint');
  let hints: Promise<string[]> | undefined;
  const minted = () => {
    hints ??= server.mint('id_token_hint', CIBA_HINTS);
    return hints;
  };
  return {
    url: server.baseUrl + server.backchannelPath,
    async check() {
      const [hint = ''] = await minted();
      const before = (await server.counters()).pushes ?? 0;
      await checkCibaInitiation(server, hint);
      const pushed = ((await server.counters()).pushes ?? 0) - before;
      if (pushed !== 1) throw new Error(`one CIBA initiation made ${pushed} authenticator pushes`);
    },
    async bodiesFor() {
      const bodies = (await minted()).map((hint) => Buffer.from(cibaRequestBody(hint)));
      return { kind: 'in-turn', bodies };
    },
  };
}
