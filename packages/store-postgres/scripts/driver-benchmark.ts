/**
 * Times the store's own `set` and `consume` statements through `pg` and through `postgres`
 * (porsager), the measurement behind the driver choice in docs/decisions.md. Each pair is a
 * `set` then a `consume` of the same fresh id, as an authorization code's life is.
 *
 *   npx tsx packages/store-postgres/scripts/driver-benchmark.ts [postgres://…] [pairs]
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';
import { migrate } from '../src/migrate.js';
import { quote, schemaNames } from '../src/schema.js';
import { statements } from '../src/statements.js';

const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/test';
const pairs = Number(process.argv[3] ?? 3000);
const POOL_SIZE = 10;
const CONCURRENCY = 64;
const ROUNDS = 7;

type Run = (name: 'set' | 'consume', params: unknown[]) => Promise<unknown>;
interface Driver {
  name: string;
  run: Run;
  end(): Promise<void>;
}

const prefix = `bench_${randomUUID().replaceAll('-', '').slice(0, 8)}_`;
const names = schemaNames(prefix);
const sql = statements(names);
const value = JSON.stringify({ realm: 'demo', client_id: 'app', sub: 'alice', scope: 'openid' });

function pgDriver(): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  return {
    name: 'pg',
    run: (name, params) => pool.query({ ...sql[name], values: params }),
    end: () => pool.end(),
  };
}

function postgresDriver(): Driver {
  const client = postgres(url, { max: POOL_SIZE, onnotice: () => {} });
  return {
    name: 'postgres',
    run: (name, params) => client.unsafe(sql[name].text, params as never[], { prepare: true }),
    end: () => client.end(),
  };
}

async function pair(driver: Driver, latencies: number[]): Promise<void> {
  const id = randomUUID();
  const started = performance.now();
  await driver.run('set', ['bench', id, value, 60, null]);
  await driver.run('consume', ['bench', id]);
  latencies.push(performance.now() - started);
}

async function sequential(driver: Driver, latencies: number[]): Promise<void> {
  for (let n = 0; n < pairs; n++) await pair(driver, latencies);
}

async function concurrent(driver: Driver, latencies: number[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < pairs) await pair(driver, latencies);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

interface Sample {
  pairsPerSecond: number;
  p50: number;
  p99: number;
  /** This process's CPU time per pair: the driver's own cost, steadier than throughput on a busy machine. */
  cpuMicros: number;
}

async function time(driver: Driver, mode: typeof sequential): Promise<Sample> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await mode(driver, latencies);
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))] ?? 0;
  return {
    pairsPerSecond: pairs / seconds,
    p50: at(0.5),
    p99: at(0.99),
    cpuMicros: (user + system) / pairs,
  };
}

const median = (values: number[]) =>
  values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function summary(samples: Sample[]): string {
  const of = (field: keyof Sample) => median(samples.map((sample) => sample[field]));
  return (
    `${Math.round(of('pairsPerSecond'))} pairs/s, p50 ${of('p50').toFixed(2)} ms, ` +
    `p99 ${of('p99').toFixed(2)} ms, ${Math.round(of('cpuMicros'))} µs CPU/pair`
  );
}

await migrate({ connectionString: url, tablePrefix: prefix });
const setup = new pg.Client({ connectionString: url });
await setup.connect();
const modes = { sequential, [`${CONCURRENCY} concurrent`]: concurrent };
const samples = new Map<string, Sample[]>();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which driver goes first, so neither always meets a warmer or colder database.
    const makers = round % 2 ? [pgDriver, postgresDriver] : [postgresDriver, pgDriver];
    for (const make of makers) {
      const driver = make();
      await pair(driver, []); // connect and prepare outside the timing
      for (const [mode, run] of Object.entries(modes)) {
        const label = `${driver.name.padEnd(8)} ${mode}`;
        samples.set(label, [...(samples.get(label) ?? []), await time(driver, run)]);
      }
      await driver.end();
    }
  }
  console.log(`median of ${ROUNDS} rounds of ${pairs} set+consume pairs, pool of ${POOL_SIZE}:`);
  for (const [label, runs] of samples) console.log(`  ${label}: ${summary(runs)}`);
} finally {
  await setup.query(`DROP TABLE ${quote(names.table)} CASCADE`);
  await setup.query(`DROP TABLE IF EXISTS ${quote(names.caps)}`);
  await setup.query(`DROP SEQUENCE ${quote(names.revisions)}`);
  await setup.query(
    `DROP FUNCTION ${quote(names.grantOpen)}(text), ${quote(names.revokeGrant)}(text, float8)`,
  );
  await setup.end();
}
