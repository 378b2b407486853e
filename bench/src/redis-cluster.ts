import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { RedisCluster, RedisServer, redisBinaries } from '../../test/support/redis-servers.js';
import { endWithBench, exitOnSignals, exitWithParent } from './child-lifetime.js';
import { applyLoad, type LoadResult, type RequestBodies } from './load.js';
import { startOurs } from './servers/ours.js';
import type { RunningServer } from './servers/running-server.js';
import { tokenRequestBody } from './token-request.js';

/**
 * Issue 23's figures: ours (`bench/src/servers/ours.ts`, Fastify, ES256 JWTs, every token
 * recorded) on one Redis server and on a Redis Cluster of three primaries (no replicas, so both
 * count the store's work alone), each in its own Redis processes started here:
 *
 * 1. client_credentials and the code exchange, one Gatehouse process: requests per second, and
 *    requests per second of Redis CPU (all of its processes, from INFO cpu), the Cluster's
 *    against the single server's (the target is at least 0.8);
 * 2. the same on the Cluster from two Gatehouse processes, load split between them: if the store
 *    were the bottleneck, two processes would not serve more than one, and Redis's processes
 *    would be near a full core each.
 *
 *   pnpm --filter @gatehouse-oidc/bench run redis-cluster
 *
 * BENCH_DURATION (s, default 10) and BENCH_CONNECTIONS (default 50) as for `pnpm bench`;
 * BENCH_SCENARIOS picks scenarios, BENCH_CODES_PER_SECOND sizes the code pools and
 * BENCH_CLUSTER_REPLICAS gives each primary replicas (their CPU is printed apart, not in the
 * ratio) and BENCH_WAIT_FOR_REPLICAS sets the store's `waitForReplicas`. Each Redis process's idle CPU is measured first, over a run's length, and the ratio is
 * also given with it set aside. Every process shares the machine's cores: Redis CPU per request
 * is the figure to compare, rates move with the machine's load.
 */

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
/** Seconds of load before each measured run, not counted: the JIT, the connections, the keys. */
const WARMUP = Math.max(1, Math.round(DURATION / 3));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Replicas per primary (BENCH_CLUSTER_REPLICAS, default none): their CPU is shown apart. */
const REPLICAS = Number(process.env.BENCH_CLUSTER_REPLICAS ?? 0);
/**
 * The store's `waitForReplicas` (BENCH_WAIT_FOR_REPLICAS): when unset, its default with replicas
 * and 0 without, as docs/storage-and-keys.md advises for a Cluster with nothing to wait for.
 */
const WAIT_FOR_REPLICAS =
  process.env.BENCH_WAIT_FOR_REPLICAS !== undefined
    ? Number(process.env.BENCH_WAIT_FOR_REPLICAS)
    : REPLICAS === 0
      ? 0
      : undefined;
/** Codes minted per second of a code-exchange run: more than it can redeem. */
const CODES_PER_SECOND = Number(process.env.BENCH_CODES_PER_SECOND ?? 800);
const ALL_SCENARIOS = ['client_credentials', 'authorization_code'] as const;
type Scenario = (typeof ALL_SCENARIOS)[number];
/** BENCH_SCENARIOS (comma-separated) picks some of them. */
const SCENARIOS = ALL_SCENARIOS.filter(
  (scenario) => process.env.BENCH_SCENARIOS?.split(',').includes(scenario) ?? true,
);

/** Messages between this process and a Gatehouse process it forked. */
type ToServer = { type: 'mint'; count: number } | { type: 'cpu' } | { type: 'stop' };
type FromServer =
  | { type: 'ready'; url: string }
  | { type: 'minted'; codes: string[] }
  | { type: 'cpu'; micros: number };

/** A forked Gatehouse process: ours on a RedisStore of `url`, under a prefix of its own. */
async function serve(url: string): Promise<void> {
  const keyPrefix = `bench-${randomBytes(4).toString('hex')}:`;
  const server: RunningServer = await startOurs({
    // A loaded machine can hold a reply up past the default second: a bench wants throughput,
    // not the failure bound.
    store: new RedisStore({
      url,
      keyPrefix,
      commandTimeoutMs: 10_000,
      ...(WAIT_FOR_REPLICAS !== undefined && { waitForReplicas: WAIT_FOR_REPLICAS }),
    }),
    prefix: keyPrefix,
    cleanUp: async () => {},
  });
  const send = (message: FromServer) => process.send?.(message);
  const mint = server.mint;
  if (!mint) throw new Error('ours mints codes');
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= server.close();
    return closing;
  };
  // Closed once, whether told to stop or left behind by the parent.
  exitWithParent(close);
  process.on('message', async (message: ToServer) => {
    if (message.type === 'mint')
      send({ type: 'minted', codes: await mint('authorization_code', message.count) });
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    }
    if (message.type === 'stop') {
      await close();
      process.exit(0);
    }
  });
  send({ type: 'ready', url: `${server.baseUrl}${server.tokenPath}` });
}

interface GatehouseProcess {
  url: string;
  ask<T extends FromServer['type']>(
    message: ToServer,
    answer: T,
  ): Promise<Extract<FromServer, { type: T }>>;
  stop(): void;
}

function forkGatehouse(redisUrl: string): Promise<GatehouseProcess> {
  const child = endWithBench(
    fork(fileURLToPath(import.meta.url), ['serve', redisUrl], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const ask: GatehouseProcess['ask'] = (message, answer) =>
    new Promise((resolve) => {
      const listener = (reply: FromServer) => {
        if (reply.type !== answer) return;
        child.off('message', listener);
        resolve(reply as never);
      };
      child.on('message', listener);
      child.send(message);
    });
  return new Promise((resolve) => {
    child.once('message', (ready: FromServer) => {
      if (ready.type !== 'ready') throw new Error('the Gatehouse process did not start');
      resolve({ url: ready.url, ask, stop: () => child.send({ type: 'stop' }) });
    });
  });
}

/** What one run measured. */
interface Run {
  requestsPerSecond: number;
  /** Requests answered per second of Redis CPU, all its processes together. */
  perRedisCpuSecond: number;
  /**
   * The same, less what the processes spend idle (their timers, a Cluster's gossip) over as long:
   * the CPU the requests cost.
   */
  perLoadCpuSecond: number;
  /** Commands Redis ran per request (a script counting once plus each call inside it). */
  commandsPerRequest: number;
  /** Socket reads per request, all Redis processes together: batches of commands received. */
  readsPerRequest: number;
  /** CPU of each Redis primary over the run, as a share of one core. */
  redisCores: number[];
  /** CPU of each Redis replica over the run, as a share of one core. */
  replicaCores: number[];
  /** CPU of each Gatehouse process over the run, as a share of one core. */
  gatehouseCores: number[];
  failures: number;
}

/** What each of `ports`' Redis processes did so far: CPU seconds (user + system), commands, reads. */
async function redisCounters(
  cli: (port: number, ...args: string[]) => Promise<string>,
  ports: number[],
): Promise<RedisCounters[]> {
  return Promise.all(
    ports.map(async (port) => {
      const info = await cli(port, 'INFO', 'all');
      const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1]);
      return {
        cpu: field('used_cpu_user') + field('used_cpu_sys'),
        commands: field('total_commands_processed'),
        reads: field('total_reads_processed'),
      };
    }),
  );
}

interface RedisCounters {
  cpu: number;
  commands: number;
  reads: number;
}

/**
 * The Redis processes measured, primaries first, then `replicas` replicas, whose CPU (taking
 * the replication stream: the price of failover) is shown apart and left out of the ratio; and
 * the share of a core each spends idle.
 */
interface Stores {
  counters: () => Promise<RedisCounters[]>;
  replicas: number;
  idleCores: number[];
}

/** What each process spends with no client: counted over a run's length. */
async function idleCoresOf(counters: () => Promise<RedisCounters[]>): Promise<number[]> {
  const before = await counters();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, DURATION * 1000));
  const seconds = (performance.now() - started) / 1000;
  return (await counters()).map(
    (after, index) => (after.cpu - (before[index] as RedisCounters).cpu) / seconds,
  );
}

async function measure(
  scenario: Scenario,
  gatehouses: GatehouseProcess[],
  { counters: countersOf, replicas, idleCores }: Stores,
): Promise<Run> {
  /** Each process's requests for `duration` seconds: fresh codes for every run. */
  const bodiesFor = (duration: number) =>
    Promise.all(
      gatehouses.map(async (gatehouse): Promise<RequestBodies> => {
        if (scenario === 'client_credentials')
          return { kind: 'fixed', body: tokenRequestBody('client_credentials') };
        const count = Math.ceil((CODES_PER_SECOND * duration) / gatehouses.length);
        const { codes } = await gatehouse.ask({ type: 'mint', count }, 'minted');
        const pool = codes.map((code) => ({
          body: Buffer.from(tokenRequestBody('authorization_code', code)),
        }));
        return { kind: 'one-time', pool };
      }),
    );
  const load = (bodies: RequestBodies[], duration: number): Promise<LoadResult[]> =>
    Promise.all(
      gatehouses.map((gatehouse, index) =>
        applyLoad(
          gatehouse.url,
          { connections: Math.ceil(CONNECTIONS / gatehouses.length), duration },
          bodies[index] as RequestBodies,
        ),
      ),
    );
  await load(await bodiesFor(WARMUP), WARMUP);
  const cpu = () =>
    Promise.all(
      gatehouses.map(async (gatehouse) => (await gatehouse.ask({ type: 'cpu' }, 'cpu')).micros),
    );
  const measured = await bodiesFor(DURATION);
  const [redisBefore, gatehouseBefore] = [await countersOf(), await cpu()];
  const started = performance.now();
  const results = await load(measured, DURATION);
  const seconds = (performance.now() - started) / 1000;
  const [redisAfter, gatehouseAfter] = [await countersOf(), await cpu()];
  const ok = results.reduce((sum, result) => sum + result.ok, 0);
  const primaries = redisAfter.length - replicas;
  const usedBy = (counter: keyof RedisCounters) =>
    redisAfter.map(
      (after, index) => after[counter] - (redisBefore[index] as RedisCounters)[counter],
    );
  const used = (counter: keyof RedisCounters) => usedBy(counter).slice(0, primaries);
  const total = (counter: keyof RedisCounters) => used(counter).reduce((sum, n) => sum + n, 0);
  const redisSeconds = used('cpu');
  const idleSeconds =
    idleCores.slice(0, primaries).reduce((sum, cores) => sum + cores, 0) * seconds;
  return {
    requestsPerSecond: ok / seconds,
    perRedisCpuSecond: ok / total('cpu'),
    perLoadCpuSecond: ok / (total('cpu') - idleSeconds),
    commandsPerRequest: total('commands') / ok,
    readsPerRequest: total('reads') / ok,
    redisCores: redisSeconds.map((used) => used / seconds),
    replicaCores: usedBy('cpu')
      .slice(primaries)
      .map((used) => used / seconds),
    gatehouseCores: gatehouseAfter.map(
      (after, index) => (after - (gatehouseBefore[index] as number)) / 1e6 / seconds,
    ),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
  };
}

const cores = (shares: number[]) => shares.map((share) => share.toFixed(2)).join(' + ');

function line(label: string, run: Run): string {
  return (
    `${label.padEnd(34)} ${run.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
    `${run.perRedisCpuSecond.toFixed(0).padStart(6)} req per Redis CPU-s ` +
    `(${run.perLoadCpuSecond.toFixed(0)} idle CPU aside)  ` +
    `${run.commandsPerRequest.toFixed(1)} commands, ${run.readsPerRequest.toFixed(2)} reads per req  ` +
    `Redis cores ${cores(run.redisCores)}` +
    (run.replicaCores.length > 0 ? ` (replicas ${cores(run.replicaCores)})` : '') +
    `  Gatehouse cores ${cores(run.gatehouseCores)}` +
    (run.failures > 0 ? `  ${run.failures} FAILED` : '')
  );
}

async function main(): Promise<void> {
  if (!redisBinaries) process.exit(1);
  console.log(
    `redis-cluster bench ${new Date().toISOString()}: ${DURATION} s per run, ${CONNECTIONS} connections`,
  );
  const single = await RedisServer.start(redisBinaries);
  const cluster = await RedisCluster.start(redisBinaries, { replicas: REPLICAS });
  const nodes = await cluster.nodes();
  const ports = [
    ...nodes.filter((node) => node.primary).map((node) => node.port),
    ...nodes.filter((node) => !node.primary).map((node) => node.port),
  ];
  const singleCounters = () => redisCounters((_, ...args) => single.cli(...args), [single.port]);
  const clusterCounters = () => redisCounters((port, ...args) => cluster.cli(port, ...args), ports);
  const singleStores: Stores = {
    counters: singleCounters,
    replicas: 0,
    idleCores: await idleCoresOf(singleCounters),
  };
  const clusterStores: Stores = {
    counters: clusterCounters,
    replicas: 3 * REPLICAS,
    idleCores: await idleCoresOf(clusterCounters),
  };
  console.log(
    `idle: one Redis ${cores(singleStores.idleCores)} cores, the Cluster ${cores(clusterStores.idleCores)}`,
  );
  try {
    for (const scenario of SCENARIOS) {
      console.log(`\n== ${scenario}`);
      const onSingle = await forkGatehouse(single.url);
      const alone = await measure(scenario, [onSingle], singleStores);
      onSingle.stop();
      console.log(line('one Redis, one Gatehouse', alone));
      const onCluster = await forkGatehouse(cluster.url);
      const clustered = await measure(scenario, [onCluster], clusterStores);
      console.log(line('Cluster (3 primaries), one Gatehouse', clustered));
      const second = await forkGatehouse(cluster.url);
      const two = await measure(scenario, [onCluster, second], clusterStores);
      onCluster.stop();
      second.stop();
      console.log(line('Cluster, two Gatehouse processes', two));
      console.log(
        `Cluster/single requests per Redis CPU-s: ${(clustered.perRedisCpuSecond / alone.perRedisCpuSecond).toFixed(2)} (target ≥ 0.80), ` +
          `idle CPU aside ${(clustered.perLoadCpuSecond / alone.perLoadCpuSecond).toFixed(2)}; ` +
          `two processes/one on the Cluster: ${(two.requestsPerSecond / clustered.requestsPerSecond).toFixed(2)}× the requests`,
      );
    }
  } finally {
    await Promise.all([single.stop(), cluster.stop()]);
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3] as string);
else {
  exitOnSignals();
  await main();
}
