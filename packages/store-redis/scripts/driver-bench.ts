/**
 * Compares the two Redis drivers on the store's hot path: the `set` script (what client_credentials
 * runs once per token) and the `consume` script (an authorization code), awaited one at a time and
 * with many in flight. Run against a local Redis:
 *
 *   npx tsx packages/store-redis/scripts/driver-bench.ts [redis://127.0.0.1:6379]
 *
 * The numbers in docs/decisions.md come from this script.
 */
import { Redis } from 'ioredis';
import { createClient, defineScript } from 'redis';

const SET_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;
const CONSUME_SCRIPT = `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return false end
return {v, redis.call('HSETNX', KEYS[1], 'u', '1')}`;

const url = process.argv[2] ?? 'redis://127.0.0.1:6379';
const SEQUENTIAL = 3_000;
const CONCURRENT = 20_000;
const IN_FLIGHT = 50;
const VALUE = JSON.stringify({
  realm: 'bench',
  jti: 'x'.repeat(22),
  sub: 'service-client',
  client_id: 'service-client',
  aud: 'https://api.example.com',
  scope: 'read write',
  iat: 1_700_000_000,
  nbf: 1_700_000_000,
  exp: 1_700_003_600,
});

interface Driver {
  set(key: string): Promise<unknown>;
  consume(key: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * What RedisStore sets: auto-pipelining, and for bounded failures per-command and socket timeouts
 * and no offline queue.
 */
const IOREDIS_STORE_OPTIONS = {
  enableAutoPipelining: true,
  commandTimeout: 1000,
  socketTimeout: 1000,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
};

async function ioredis(autoPipelining: boolean, storeOptions = false): Promise<Driver> {
  const client = new Redis(
    url,
    storeOptions ? IOREDIS_STORE_OPTIONS : { enableAutoPipelining: autoPipelining },
  );
  // Without an offline queue, nothing may be sent before the connection is ready.
  await new Promise((resolve) => client.once('ready', resolve));
  client.defineCommand('benchSet', { numberOfKeys: 1, lua: SET_SCRIPT });
  client.defineCommand('benchConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
  const scripts = client as unknown as {
    benchSet(key: string, value: string, revision: string, ttl: string): Promise<unknown>;
    benchConsume(key: string): Promise<unknown>;
  };
  return {
    set: (key) => scripts.benchSet(key, VALUE, '1', '60000'),
    consume: (key) => scripts.benchConsume(key),
    close: async () => {
      await client.quit();
    },
  };
}

async function nodeRedis(storeOptions = false): Promise<Driver> {
  const created = createClient({
    url,
    disableOfflineQueue: storeOptions,
    scripts: {
      benchSet: defineScript({
        SCRIPT: SET_SCRIPT,
        NUMBER_OF_KEYS: 1,
        parseCommand(parser, key: string, value: string, revision: string, ttl: string) {
          parser.pushKey(key);
          parser.push(value, revision, ttl);
        },
        transformReply: (reply: unknown) => reply,
      }),
      benchConsume: defineScript({
        SCRIPT: CONSUME_SCRIPT,
        NUMBER_OF_KEYS: 1,
        parseCommand(parser, key: string) {
          parser.pushKey(key);
        },
        transformReply: (reply: unknown) => reply,
      }),
    },
  });
  await created.connect();
  const client = storeOptions ? created.withCommandOptions({ timeout: 1000 }) : created;
  return {
    set: (key) => client.benchSet(key, VALUE, '1', '60000'),
    consume: (key) => client.benchConsume(key),
    close: async () => {
      await created.close();
    },
  };
}

interface Sample {
  /** Median latency of one awaited call, in microseconds. */
  sequentialSetUs: number;
  sequentialConsumeUs: number;
  /** With `IN_FLIGHT` callers: operations per second and the client's CPU per operation. */
  concurrentSetOps: number;
  concurrentSetCpuUs: number;
  concurrentConsumeOps: number;
  concurrentConsumeCpuUs: number;
}

/** Median latency in microseconds, awaiting each call before the next. */
async function sequential(run: (n: number) => Promise<unknown>, count: number): Promise<number> {
  const latencies: number[] = [];
  for (let n = 0; n < count; n++) {
    const started = performance.now();
    await run(n);
    latencies.push((performance.now() - started) * 1000);
  }
  return median(latencies);
}

/**
 * Operations per second and client CPU microseconds per operation with `IN_FLIGHT` callers, like
 * a server under load. CPU time varies less than throughput on a shared machine.
 */
async function concurrent(
  run: (n: number) => Promise<unknown>,
  count: number,
): Promise<{ ops: number; cpuUs: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await run(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { ops: count / seconds, cpuUs: (used.user + used.system) / count };
}

async function measure(driver: Driver): Promise<Sample> {
  const prefix = `gatehouse-bench:${crypto.randomUUID()}:`;
  const key = (n: number) => `${prefix}${n}`;
  // Warm up the connection, the script cache and the JIT.
  await concurrent((n) => driver.set(key(n)), 5_000);
  const sequentialSetUs = await sequential((n) => driver.set(key(n)), SEQUENTIAL);
  const sequentialConsumeUs = await sequential((n) => driver.consume(key(n)), SEQUENTIAL);
  const set = await concurrent((n) => driver.set(key(n)), CONCURRENT);
  const consume = await concurrent((n) => driver.consume(key(n)), CONCURRENT);
  await driver.close();
  return {
    sequentialSetUs,
    sequentialConsumeUs,
    concurrentSetOps: set.ops,
    concurrentSetCpuUs: set.cpuUs,
    concurrentConsumeOps: consume.ops,
    concurrentConsumeCpuUs: consume.cpuUs,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Several rounds with the drivers interleaved, reporting each cell's median: on a shared machine
 * one round says little.
 */
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const drivers: Array<[string, () => Promise<Driver>]> = [
  ['ioredis', () => ioredis(false)],
  ['ioredis, auto-pipelining', () => ioredis(true)],
  ["ioredis, the store's options", () => ioredis(true, true)],
  ['node-redis', () => nodeRedis()],
  ["node-redis, the store's options", () => nodeRedis(true)],
];
const samples: Sample[][] = drivers.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [index, [, make]] of drivers.entries())
    samples[index]?.push(await measure(await make()));
}
console.log(
  `Medians of ${ROUNDS} rounds. Sequential: median latency of ${SEQUENTIAL} awaited calls; ` +
    `concurrent: ${CONCURRENT} calls with ${IN_FLIGHT} in flight, ops/s and client CPU per call.`,
);
const cell = (index: number, metric: keyof Sample, digits = 0) =>
  median((samples[index] ?? []).map((sample) => sample[metric])).toFixed(digits);
console.table(
  drivers.map(([name], index) => ({
    driver: name,
    'set seq µs': cell(index, 'sequentialSetUs'),
    'consume seq µs': cell(index, 'sequentialConsumeUs'),
    'set ops/s': cell(index, 'concurrentSetOps'),
    'set CPU µs': cell(index, 'concurrentSetCpuUs', 1),
    'consume ops/s': cell(index, 'concurrentConsumeOps'),
    'consume CPU µs': cell(index, 'concurrentConsumeCpuUs', 1),
  })),
);
