import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type { RedisServerStats } from '../../test/support/service-admin.js';
import { anonymousMemory } from './anonymous-memory.js';
import { exitOnSignals } from './child-lifetime.js';
import { delegationLines, measureDelegationGrants } from './delegation-grants.js';
import {
  FLOW_CRYPTO,
  floorLines,
  floorOf,
  floorRatios,
  measureCryptoCosts,
  medianFloorLines,
} from './floor.js';
import { launchServer, ServerUnavailableError } from './launch.js';
import { applyLoad, PoolExhaustedError, type RequestBodies } from './load.js';
import {
  type Measurement,
  medianCpuLines,
  medianRatioLines,
  ratioLines,
  resultTable,
  SERVER_LABELS,
  serviceLines,
  storeOpLines,
} from './report.js';
import { measureVerification, verificationLines } from './resource-server-verify.js';
import { scenarioRequests } from './scenario-requests.js';
import {
  ANONYMOUS_MEMORY,
  DELEGATION_GRANTS,
  RESOURCE_SERVER_VERIFY,
  type RequestScenarioName,
  SCENARIOS,
} from './scenarios.js';
import type { ServerName } from './server-names.js';
import type { ServerCounters } from './servers/running-server.js';
import { poolSettingsOf, readSettings } from './settings.js';

/**
 * `pnpm bench`: for each scenario (a token request of one grant, or a CIBA initiation), each
 * server in its own child process, load from this one. Every server is checked to answer the
 * scenario's request correctly first, warmed up, then measured with the same connections and
 * duration. The user grants spend a one-time credential per request: the server child mints a
 * pool of them before the warm-up and another before the measured run, outside the measured
 * window. A server whose service (PostgreSQL, Redis) does not answer is skipped with one line.
 */
/**
 * How much faster than its warm-up a server may go through the measured run's pool: the JIT still
 * settles during the warm-up. On a machine where a server outruns `poolRate`, the pool follows.
 */
const POOL_HEADROOM = 2;

exitOnSignals();
const settings = readSettings(process.env);
console.log(`gatehouse bench ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), ` +
    `${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s measured per server` +
    (settings.rounds > 1 ? `, ${settings.rounds} alternating rounds; ` : '; ') +
    `one-time credentials minted for ${settings.poolRate} req/s` +
    (settings.servers.some((name) => name.startsWith('better-auth'))
      ? ` (better-auth: ${settings.betterAuthPoolRate})`
      : ''),
);

const invalid: string[] = [];
const skipped: string[] = [];
for (const scenario of settings.scenarios) {
  if (scenario === ANONYMOUS_MEMORY) {
    console.log(`\n== ${scenario}`);
    if (!(await anonymousMemory(settings))) invalid.push(scenario);
    continue;
  }
  if (scenario === RESOURCE_SERVER_VERIFY) {
    console.log(`\n== ${scenario}`);
    const figures = await measureVerification(settings.verifyCalls, Math.max(9, settings.rounds));
    for (const line of verificationLines(figures)) console.log(line);
    continue;
  }
  if (scenario === DELEGATION_GRANTS) {
    console.log(`\n== ${scenario}`);
    const figures = await measureDelegationGrants(Math.max(8, settings.rounds));
    for (const line of delegationLines(figures)) console.log(line);
    continue;
  }
  const servers = settings.servers.filter((name) => SCENARIOS.get(scenario)?.includes(name));
  if (servers.length === 0) continue;
  console.log(`\n== ${scenario}`);
  const rounds: Map<ServerName, Measurement>[] = [];
  const floorRatiosByRound: Array<Array<[ServerName, number]>> = [];
  for (let round = 1; round <= settings.rounds; round++) {
    if (settings.rounds > 1) console.log(`\n-- round ${round} of ${settings.rounds}`);
    // The cryptography's cost is measured in every round, next to the servers: this machine's
    // speed moved by half within one run, and a floor from another moment misjudged every round.
    const cryptoCosts = await measureCryptoCosts(1_000, 3);
    console.log(
      `ES256 this round (node:crypto, CPU per call): signature ${cryptoCosts.signMicros.toFixed(0)} µs, ` +
        `verification ${cryptoCosts.verifyMicros.toFixed(0)} µs`,
    );
    const results = await measureRound(scenario, servers);
    if (results.size === 0) break;
    rounds.push(results);
    const ceiling = results.get('ceiling');
    console.log(`\n${resultTable(results)}\n`);
    // The bare route of this round and flow: its speed moves from one round to the next.
    const floor = ceiling
      ? floorOf(scenario, ceiling.serverCpuMicrosPerRequest, cryptoCosts)
      : undefined;
    if (floor) floorRatiosByRound.push(floorRatios(floor, results));
    const lines = [
      ...(floor
        ? floorLines(floor, results)
        : FLOW_CRYPTO.has(scenario)
          ? ['floor: unknown, the ceiling (the bare route) not measured (BENCH_SERVERS)']
          : []),
      ...ratioLines(scenario, results),
      ...storeOpLines(scenario, results),
      ...serviceLines(results),
    ];
    for (const line of lines) console.log(line);
  }
  if (rounds.length > 1) {
    console.log(`\nover ${rounds.length} rounds, server CPU per request:`);
    for (const line of medianCpuLines(scenario, rounds)) console.log(line);
    for (const line of medianFloorLines(floorRatiosByRound)) console.log(line);
    console.log(`\nover ${rounds.length} rounds, throughput:`);
    for (const line of medianRatioLines(scenario, rounds)) console.log(line);
  }
}

if (settings.cpuProfileDir)
  console.log(`\nCPU profiles written to ${settings.cpuProfileDir}/<scenario>/<server>.cpuprofile`);
if (skipped.length > 0)
  console.log(`\nskipped, their service not answering: ${skipped.join(', ')}`);
if (invalid.length > 0) {
  console.error(`\ninvalid run: ${invalid.join(', ')} answered errors under load`);
  process.exitCode = 1;
}

/** Each server once, in order; a server whose service does not answer is skipped with a line. */
async function measureRound(
  scenario: RequestScenarioName,
  servers: readonly ServerName[],
): Promise<Map<ServerName, Measurement>> {
  const results = new Map<ServerName, Measurement>();
  for (const name of servers) {
    if (skipped.includes(`${name} (${scenario})`)) continue;
    const measured = await measure(scenario, name).catch((error: unknown) => {
      if (!(error instanceof ServerUnavailableError)) throw error;
      console.log(`SKIPPED ${error.message}`);
      skipped.push(`${name} (${scenario})`);
      return undefined;
    });
    if (!measured) continue;
    results.set(name, measured);
    console.log(`measured ${SERVER_LABELS[name]}: ${Math.round(measured.requestsPerSecond)} req/s`);
    if (measured.failures > 0) invalid.push(`${name} (${scenario})`);
  }
  return results;
}

/** Loads `url` for the warm-up's length; the rate it reached (a lower bound if its pool ran dry). */
async function warmUp(
  url: string,
  load: { connections: number },
  bodies: RequestBodies,
): Promise<number> {
  try {
    return (await applyLoad(url, { ...load, duration: settings.warmup }, bodies)).requestsPerSecond;
  } catch (error) {
    // A warm-up that went through its whole pool has warmed up all the same.
    if (!(error instanceof PoolExhaustedError) || bodies.kind !== 'one-time') throw error;
    return bodies.pool.length / settings.warmup;
  }
}

async function measure(scenario: RequestScenarioName, name: ServerName): Promise<Measurement> {
  const server = await launchServer(name);
  try {
    const requests = scenarioRequests(scenario, server, poolSettingsOf(settings, name), (line) =>
      console.log(`${name}: ${line}`),
    );
    await requests.check();
    const load = { connections: settings.connections };
    const warmupBodies = await requests.bodiesFor(settings.warmup);
    const warmupRate = await warmUp(requests.url, load, warmupBodies);
    const bodies = await requests.bodiesFor(settings.duration, POOL_HEADROOM * warmupRate);

    const { cpuProfileDir } = settings;
    if (cpuProfileDir) await server.startProfile();
    const countersBefore = await server.counters();
    const serverCpuBefore = await server.cpuMicros();
    const loadCpuBefore = process.cpuUsage();
    const result = await applyLoad(requests.url, { ...load, duration: settings.duration }, bodies);
    const loadCpu = process.cpuUsage(loadCpuBefore);
    const serverCpuMicros = (await server.cpuMicros()) - serverCpuBefore;
    const countersAfter = await server.counters();
    if (cpuProfileDir)
      await server.stopProfile(join(cpuProfileDir, scenario, `${name}.cpuprofile`));
    const answered = Math.max(1, result.ok + result.failures);
    const storeOps = storeOpsPerRequest(countersBefore, countersAfter);
    const service = servicePerRequest(countersBefore, countersAfter);
    return {
      ...result,
      serverCpuMicrosPerRequest: serverCpuMicros / answered,
      loadCpuMicrosPerRequest: (loadCpu.user + loadCpu.system) / answered,
      ...(storeOps ? { storeOpsPerRequest: storeOps } : {}),
      ...(service ? { servicePerRequest: service } : {}),
    };
  } finally {
    await server.stop();
  }
}

/**
 * The store calls per method made between two counts, per request the server counted as
 * answered in between (ours counts both once idle, so in-flight requests at either end cannot
 * skew the figure); undefined for servers that count neither.
 */
function storeOpsPerRequest(
  before: ServerCounters,
  after: ServerCounters,
): Record<string, number> | undefined {
  if (!after.storeOps || after.requests === undefined) return undefined;
  const requests = Math.max(1, after.requests - (before.requests ?? 0));
  return Object.fromEntries(
    Object.entries(after.storeOps).map(([method, count]) => [
      method,
      (count - (before.storeOps?.[method] ?? 0)) / requests,
    ]),
  );
}

/** The Redis server's CPU, commands and reads between two counts, per request answered. */
function servicePerRequest(
  before: ServerCounters,
  after: ServerCounters,
): RedisServerStats | undefined {
  if (!before.service || !after.service || after.requests === undefined) return undefined;
  const requests = Math.max(1, after.requests - (before.requests ?? 0));
  const { service: first } = before;
  const { service: last } = after;
  return {
    cpuMicros: (last.cpuMicros - first.cpuMicros) / requests,
    commands: (last.commands - first.commands) / requests,
    reads: (last.reads - first.reads) / requests,
  };
}
