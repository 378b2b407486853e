import { dpopKey } from '../../test/support/dpop.js';
import { CIBA_HINTS, checkCibaInitiation, cibaRequestBody } from './ciba-request.js';
import { checkDpopClientCredentials, dpopTokenUrl, proofsOf } from './dpop-proofs.js';
import type { LaunchedServer } from './launch.js';
import type { RequestBodies } from './load.js';
import { checkPushedRequest, PUSHED_REQUEST_BODY } from './pushed-request.js';
import {
  DPOP_CLIENT_CREDENTIALS,
  PAR_AUTHORIZATION_CODE,
  type RequestScenarioName,
} from './scenarios.js';
import {
  checkSpent,
  checkTokenEndpoint,
  isUserGrant,
  postForm,
  TOKEN_REQUEST_BODY,
  tokenRequestBody,
  type UserGrantType,
} from './token-request.js';

/** How one scenario loads one server: where to, what to check first, and what to send. */
export interface ScenarioRequests {
  readonly url: string;
  /** Fails unless the server answers one request of the scenario correctly; run before any load. */
  check(): Promise<void>;
  /**
   * The bodies of a run of `seconds`: the fixed one, one per credential of a fresh pool, or a few
   * in turn. A pool lasts at the pool rate, or at `rate` when that is higher.
   */
  bodiesFor(seconds: number, rate?: number): Promise<RequestBodies>;
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
  if (server.fixedAnswers) return bareRoute(scenario, server);
  if (scenario === 'ciba_initiation') return cibaInitiation(server);
  if (scenario === DPOP_CLIENT_CREDENTIALS) return dpopClientCredentials(server, settings);
  if (scenario === PAR_AUTHORIZATION_CODE) return pushedThenExchanged(server, settings, log);
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
    async bodiesFor(seconds, rate) {
      const credentials = await mintPool(server, scenario, poolSize(settings, seconds, rate), log);
      return {
        kind: 'one-time',
        pool: credentials.map((credential) => ({
          body: Buffer.from(tokenRequestBody(scenario, credential)),
        })),
      };
    },
  };
}

/** About the length of the one-time credentials and ID tokens the servers mint. */
const CREDENTIAL_LIKE = 'c'.repeat(43);
const ID_TOKEN_LIKE = 'h'.repeat(600);

/**
 * The ceiling in a scenario the floor is computed for: the scenario's request, its credential
 * a string of about the same length that nothing minted (the bare route reads one field and
 * answers a fixed JSON), the same body every time.
 */
function bareRoute(scenario: RequestScenarioName, server: LaunchedServer): ScenarioRequests {
  const ciba = scenario === 'ciba_initiation';
  const path = ciba ? server.backchannelPath : server.tokenPath;
  if (
    path === undefined ||
    scenario === DPOP_CLIENT_CREDENTIALS ||
    scenario === PAR_AUTHORIZATION_CODE
  )
    throw new Error(`the bare route has no ${scenario} request`);
  const url = server.baseUrl + path;
  const body = ciba
    ? cibaRequestBody(ID_TOKEN_LIKE)
    : isUserGrant(scenario)
      ? tokenRequestBody(scenario, CREDENTIAL_LIKE)
      : TOKEN_REQUEST_BODY;
  return {
    url,
    async check() {
      const { status, text } = await postForm(url, body);
      const answered = status === 200 && JSON.parse(text)[ciba ? 'auth_req_id' : 'access_token'];
      if (!answered) throw new Error(`the bare route answered ${status}: ${text.slice(0, 300)}`);
    },
    bodiesFor: async () => ({ kind: 'fixed', body }),
  };
}

/** Requests for a run of `seconds` at the pool rate (or `rate`, if higher), and one more per connection. */
const poolSize = (settings: PoolSettings, seconds: number, rate = 0) =>
  Math.ceil(seconds * Math.max(settings.poolRate, rate)) + settings.connections;

async function mintPool(
  server: LaunchedServer,
  grant: UserGrantType,
  count: number,
  log: (line: string) => void,
): Promise<string[]> {
  const started = performance.now();
  const credentials = await server.mint(grant, count);
  const elapsed = (performance.now() - started) / 1000;
  log(`minted ${count} ${grant} credentials in ${elapsed.toFixed(1)} s`);
  return credentials;
}

/**
 * The client_credentials request, each with a proof of its own (a proof is good once): signed
 * here, in the load process, before the run, so no signing lands in the measured window of
 * either process. One key, as one client has.
 */
function dpopClientCredentials(server: LaunchedServer, settings: PoolSettings): ScenarioRequests {
  const key = dpopKey();
  return {
    url: server.baseUrl + server.tokenPath,
    check: async () => checkDpopClientCredentials(server, await key),
    async bodiesFor(seconds, rate) {
      const proofs = await proofsOf(
        await key,
        dpopTokenUrl(server),
        poolSize(settings, seconds, rate),
      );
      const body = Buffer.from(TOKEN_REQUEST_BODY);
      return { kind: 'one-time', pool: proofs.map((dpop) => ({ body, headers: { dpop } })) };
    },
  };
}

/**
 * A pushed authorization request of the web client, then a code exchange, in turn: the codes are
 * minted before the run as for authorization_code (a pushed request is not one-time, its body is
 * the same every time). Counted per HTTP request: a pair costs twice the row.
 */
function pushedThenExchanged(
  server: LaunchedServer,
  settings: PoolSettings,
  log: (line: string) => void,
): ScenarioRequests {
  const { parPath } = server;
  if (parPath === undefined) throw new Error('the server has no PAR endpoint');
  const pushed = { body: Buffer.from(PUSHED_REQUEST_BODY), path: parPath };
  return {
    url: server.baseUrl + server.tokenPath,
    async check() {
      await checkPushedRequest(server);
      const [code = ''] = await server.mint('authorization_code', 1);
      await checkTokenEndpoint(server, 'authorization_code', code);
    },
    async bodiesFor(seconds, rate) {
      const pairs = Math.ceil(poolSize(settings, seconds, rate) / 2);
      const codes = await mintPool(server, 'authorization_code', pairs, log);
      return {
        kind: 'one-time',
        pool: codes.flatMap((code) => [
          pushed,
          { body: Buffer.from(tokenRequestBody('authorization_code', code)) },
        ]),
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
