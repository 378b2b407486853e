import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './cpu-rounds.js';
import { applyLoad, type LoadResult, type RequestBodies } from './load.js';
import {
  checkFleetRealm,
  discoveryPath,
  fleetRealmName,
  tokenPath,
  writeFleet,
} from './realm-fleet.js';
import { seedFleet } from './realm-seed.js';
import { postgresTable } from './servers/stores.js';
import { positiveInteger, readSettings } from './settings.js';
import { residentBytes, type Standalone, startStandalone } from './standalone.js';
import {
  BENCH_SERVICE_CLIENT,
  TOKEN_REQUEST_BODY,
  TOKEN_REQUEST_HEADERS,
} from './token-request.js';

/**
 * `pnpm realms-at-scale` (issue 24): the standalone server on PostgreSQL with many realms written
 * through its admin API. Prints the resident memory of a fresh server before and after each realm
 * was touched once, how long a realm's first discovery and first client_credentials take with
 * `BENCH_IN_FLIGHT` requests in flight, client_credentials spread over `BENCH_SPREAD_REALMS`
 * realms beside the same load on one realm (alternating rounds, server CPU per request), and how
 * long the admin API takes to list every realm, whole and in pages. The fleet is written by one
 * server, measured by another started afresh on the same table: what a restart meets. With
 * `BENCH_WRITE=store` only the first `API_WRITES` realms go through the admin API, the rest
 * straight into the table through the server's own `ApiRealms` (realm-seed.ts): 100,000 realms
 * written one PUT at a time take longer than the rest of the run.
 */

const env = process.env;
const REALMS = positiveInteger(env, 'BENCH_REALMS', 10_000);
const CLIENTS = positiveInteger(env, 'BENCH_REALM_CLIENTS', 10);
const SPREAD = Math.min(REALMS, positiveInteger(env, 'BENCH_SPREAD_REALMS', 1_000));
const IN_FLIGHT = positiveInteger(env, 'BENCH_IN_FLIGHT', 8);
const DURATION = positiveInteger(env, 'BENCH_DURATION', 5);
const WARMUP = positiveInteger(env, 'BENCH_WARMUP', 2);
const ROUNDS = positiveInteger(env, 'BENCH_ROUNDS', 3);
const WRITE = env.BENCH_WRITE ?? 'api';
if (WRITE !== 'api' && WRITE !== 'store') {
  throw new Error(`BENCH_WRITE must be "api" or "store", got "${WRITE}"`);
}
const API_WRITES = WRITE === 'api' ? REALMS : Math.min(REALMS, 1_000);
const PAGE = 1_000;
/** Realms touched again once every realm was: the last touched, well within the 2,000 kept. */
const WARM_REALMS = 1_000;
/** Slow requests sent at most this far apart were slowed by the same stall. */
const BURST_GAP_MS = 100;

const MEMORY_PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url));

console.log(`gatehouse realms at scale ${new Date().toISOString()}`);
console.log(
  `${REALMS} realms of ${CLIENTS} clients on PostgreSQL, ${IN_FLIGHT} in flight, ` +
    `load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
);

const table = await postgresTable();
const config = {
  cookie_secret: randomBytes(32).toString('base64url'),
  store: table.url,
  store_options: { table_prefix: table.tablePrefix },
  realms: [{ name: 'file-realm', scopes: ['api:read'], clients: [BENCH_SERVICE_CLIENT] }],
};
try {
  const writer = await startStandalone(config);
  const writing = Date.now();
  try {
    await writeFleet(
      writer,
      { count: API_WRITES, clients: CLIENTS, inFlight: IN_FLIGHT },
      (written) => console.log(`  ${written} realms written (${seconds(Date.now() - writing)})`),
    );
  } finally {
    await writer.stop();
  }
  console.log(`${API_WRITES} written through the admin API in ${seconds(Date.now() - writing)}`);
  if (API_WRITES < REALMS) {
    const seeding = Date.now();
    await seedFleet(
      { url: table.url, tablePrefix: table.tablePrefix, cookieSecret: config.cookie_secret },
      { from: API_WRITES, count: REALMS, clients: CLIENTS, inFlight: 4 * IN_FLIGHT },
      (written) => console.log(`  ${written} realms seeded (${seconds(Date.now() - seeding)})`),
    );
    console.log(
      `${REALMS - API_WRITES} more written into the store through ApiRealms in ` +
        `${seconds(Date.now() - seeding)}`,
    );
  }

  // The measured server's whole life, profiled (node --cpu-prof) when BENCH_CPU_PROFILE_DIR is
  // set; with BENCH_SERVER_HEAP_MB, its V8 heap capped (--max-old-space-size), which a server
  // whose memory grows with every realm touched would not survive.
  const profileDir = readSettings(env).cpuProfileDir;
  const heapMb = env.BENCH_SERVER_HEAP_MB ? positiveInteger(env, 'BENCH_SERVER_HEAP_MB', 0) : 0;
  // It starts by reading every stored realm once (are its secrets readable with this key?).
  const starting = Date.now();
  const server = await startStandalone(config, {
    nodeArguments: [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(heapMb ? [`--max-old-space-size=${heapMb}`] : []),
      // More of node's or V8's flags for it, space-separated (`--single-threaded-gc`).
      ...(env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
      '--expose-gc',
      '--import',
      MEMORY_PROBE,
    ],
  });
  console.log(`the measured server listened ${seconds(Date.now() - starting)} after it started`);
  if (heapMb) console.log(`the measured server's V8 heap capped at ${heapMb} MB`);
  try {
    await measure(server);
  } finally {
    await server.stop();
  }
} finally {
  await table.cleanUp();
}

async function measure(server: Standalone): Promise<void> {
  await checkFleetRealm(server.origin, fleetRealmName(0));
  const idle = await residentBytes(server.pid);
  console.log(`\nresident memory of a fresh server, one realm used: ${mib(idle)}`);
  console.log(await whereMemoryIs(server.pid));

  const cpuBefore = await server.cpuMicros();
  const passStarted = performance.now();
  const firsts = await touchRealms(server.origin, 1, REALMS);
  const passMs = performance.now() - passStarted;
  const touchCpuMs = ((await server.cpuMicros()) - cpuBefore) / 1000 / (REALMS - 1);
  const touched = await residentBytes(server.pid);
  console.log(
    `after every realm was touched once: ${mib(touched)} ` +
      `(${((touched - idle) / 1024 / (REALMS - 1)).toFixed(1)} KiB per realm touched)`,
  );
  console.log(await whereMemoryIs(server.pid));
  // The same requests again to the realms touched last, still in memory (their realm read, their
  // first key made): what the machine alone makes of a request at this concurrency, measured in
  // the same run, beside which the first touches are judged.
  const warmFrom = Math.max(1, REALMS - WARM_REALMS);
  const warmCpuBefore = await server.cpuMicros();
  const warm = await touchRealms(server.origin, warmFrom, REALMS);
  const warmCpuMs = ((await server.cpuMicros()) - warmCpuBefore) / 1000 / (REALMS - warmFrom);
  console.log(`  every realm touched in ${seconds(passMs)}:`);
  for (const kind of ['discovery', 'client_credentials'] as const) {
    console.log(`  first ${kind.padEnd(22)} ${latencies(firsts[kind], 50)}`);
    console.log(`    its slowest 1%: ${bursts(firsts[kind])}`);
    console.log(`  … again, realm in memory   ${latencies(warm[kind])}`);
  }
  console.log(
    `  server CPU per realm touched (its first discovery and first token): ${touchCpuMs.toFixed(2)} ms; ` +
      `the same two requests again to ${REALMS - warmFrom} realms in memory: ${warmCpuMs.toFixed(2)} ms`,
  );
  console.log(await whereMemoryIs(server.pid));

  console.log(`\nclient_credentials on one realm and spread over ${SPREAD}, ${ROUNDS} rounds:`);
  const one: LoadResult[] = [];
  const spread: LoadResult[] = [];
  const cpu = { one: [] as number[], spread: [] as number[] };
  const paths = Array.from({ length: SPREAD }, (_, index) => tokenPath(fleetRealmName(index)));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, bodies] of [
      ['one', { kind: 'fixed', body: TOKEN_REQUEST_BODY }],
      ['spread', { kind: 'spread', body: TOKEN_REQUEST_BODY, paths }],
    ] as const) {
      const measured = await load(server, bodies);
      (kind === 'one' ? one : spread).push(measured.result);
      cpu[kind].push(measured.cpuMicrosPerRequest);
      console.log(
        `  ${kind === 'one' ? 'one realm' : `${SPREAD} realms`}`.padEnd(14) +
          `${Math.round(measured.result.requestsPerSecond)} req/s, ` +
          `${Math.round(measured.cpuMicrosPerRequest)} µs server CPU/req, p99 ${measured.result.p99Ms} ms`,
      );
    }
  }
  const ratio = median(
    spread.map((r, i) => r.requestsPerSecond / (one[i]?.requestsPerSecond ?? 1)),
  );
  console.log(
    `spread / one realm, throughput: ${ratio.toFixed(2)} (median of ${ROUNDS}; target >= 0.8 ` +
      `${ratio >= 0.8 ? 'PASS' : 'MISS'}); server CPU per request ${Math.round(median(cpu.spread))} ` +
      `µs against ${Math.round(median(cpu.one))} µs`,
  );
  const afterLoad = await residentBytes(server.pid);
  console.log(`resident memory after the load: ${mib(afterLoad)}`);
  console.log(await whereMemoryIs(server.pid));

  await listRealms(server);
}

/**
 * Realms `from … to-1`, `IN_FLIGHT` at a time, each once: half first asked for their discovery
 * document, half first for a token, then the other. The time of each realm's first request of
 * the pass, from sending to the last byte of its answer, and when it was sent.
 */
async function touchRealms(origin: string, from: number, to: number) {
  const times = { discovery: [] as Timed[], client_credentials: [] as Timed[] };
  let next = from;
  const discovery = (realm: string) => timed(`${origin}${discoveryPath(realm)}`);
  const token = (realm: string) =>
    timed(`${origin}${tokenPath(realm)}`, {
      method: 'POST',
      headers: TOKEN_REQUEST_HEADERS,
      body: TOKEN_REQUEST_BODY,
    });
  const toucher = async () => {
    for (let index = next++; index < to; index = next++) {
      const realm = fleetRealmName(index);
      if (index % 2 === 0) {
        times.discovery.push(await discovery(realm));
        await token(realm);
      } else {
        times.client_credentials.push(await token(realm));
        await discovery(realm);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, toucher));
  return times;
}

/** When a request was sent (performance.now()) and how long it took, in milliseconds. */
interface Timed {
  startedMs: number;
  tookMs: number;
}

/** The request answered 200 in full, timed; throws on any other answer. */
async function timed(url: string, init?: RequestInit): Promise<Timed> {
  const startedMs = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  return { startedMs, tookMs: performance.now() - startedMs };
}

/** `IN_FLIGHT` connections for a warm-up then a measured run, with the server's CPU over it. */
async function load(server: Standalone, bodies: RequestBodies) {
  const url = `${server.origin}${tokenPath(fleetRealmName(0))}`;
  const settings = { connections: IN_FLIGHT };
  await applyLoad(url, { ...settings, duration: WARMUP }, bodies);
  const before = await server.cpuMicros();
  const result = await applyLoad(url, { ...settings, duration: DURATION }, bodies);
  const cpuMicros = (await server.cpuMicros()) - before;
  if (result.failures > 0) throw new Error(`${result.failures} requests failed under load`);
  return { result, cpuMicrosPerRequest: cpuMicros / Math.max(1, result.ok) };
}

/** `GET /admin/realms` whole, then page after page. */
async function listRealms(server: Standalone): Promise<void> {
  let started = performance.now();
  const whole = (await (await server.admin('/realms')).json()) as { realms: string[] };
  console.log(
    `\nGET /admin/realms: ${whole.realms.length} realms in ${Math.round(performance.now() - started)} ms`,
  );
  started = performance.now();
  let pages = 0;
  let listed = 0;
  let cursor: string | undefined;
  const slowest = { ms: 0 };
  do {
    const pageStarted = performance.now();
    const query = new URLSearchParams({ limit: String(PAGE), ...(cursor ? { cursor } : {}) });
    const response = await server.admin(`/realms?${query}`);
    const page = (await response.json()) as { realms: string[]; next_cursor?: string };
    if (response.status !== 200) {
      // A finding, not a failure of the bench: each page lists every realm's name in the store
      // (100,000 realms came near the store's 2 s statement timeout, and a page went past it).
      console.log(
        `page ${pages + 1} answered ${response.status} after ` +
          `${Math.round(performance.now() - pageStarted)} ms: ${JSON.stringify(page)}`,
      );
      return;
    }
    slowest.ms = Math.max(slowest.ms, performance.now() - pageStarted);
    pages++;
    listed += page.realms.length;
    cursor = page.next_cursor;
  } while (cursor);
  console.log(
    `in pages of ${PAGE}: ${listed} realms in ${pages} pages, ${Math.round(performance.now() - started)} ms ` +
      `(slowest page ${Math.round(slowest.ms)} ms)`,
  );
}

/**
 * Where the server's memory is, told by memory-probe.mjs inside it: its main thread's V8 heap as
 * it stands and what of it is live after a full collection, and what lies outside that heap
 * (buffers, code, the signing thread, native allocations such as OpenSSL's); then its garbage
 * collections and event loop delay since the previous reading. Read after `ps`: the collection
 * it forces frees what the resident figure above still counted.
 */
async function whereMemoryIs(pid: number): Promise<string> {
  const file = join(tmpdir(), `gatehouse-memory-${pid}.json`);
  await rm(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const probe = JSON.parse(await readFile(file, 'utf8')) as ProbeReport;
      await rm(file, { force: true });
      const { before, after } = probe;
      const collections = Object.entries(probe.gc)
        .map(
          ([kind, { count, totalMs, longestMs }]) =>
            `${kind} ${count}, ${Math.round(totalMs)} ms, longest ${longestMs.toFixed(1)} ms`,
        )
        .join('; ');
      const { p50Ms, p99Ms, maxMs } = probe.loop;
      return (
        `  V8 heap ${mib(before.heapTotal)} (${mib(before.heapUsed)} used, ${mib(after.heapUsed)} ` +
        `live after a full collection, which left it at ${mib(after.heapTotal)}); outside it ` +
        `${mib(before.rss - before.heapTotal)} (external ${mib(before.external)}, array buffers ` +
        `${mib(before.arrayBuffers)}); resident ${mib(before.rss)} before the collection, ` +
        `${mib(after.rss)} after\n` +
        `  since the previous reading: garbage collections ${collections || 'none'}; event loop ` +
        `late by p50 ${p50Ms.toFixed(1)} ms, p99 ${p99Ms.toFixed(1)} ms, max ${maxMs.toFixed(1)} ms`
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (Date.now() > deadline) throw new Error('the memory probe did not answer');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** What memory-probe.mjs writes. */
interface ProbeReport {
  before: NodeJS.MemoryUsage;
  after: NodeJS.MemoryUsage;
  gc: Record<string, { count: number; totalMs: number; longestMs: number }>;
  loop: { p50Ms: number; p99Ms: number; maxMs: number };
}

/** Percentiles of `times`, and whether the 99th meets `target` milliseconds when one is given. */
function latencies(times: readonly Timed[], target?: number): string {
  const sorted = times.map(({ tookMs }) => tookMs).sort((a, b) => a - b);
  const at = (share: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const p99 = at(0.99);
  const verdict =
    target === undefined ? '' : `; target p99 <= ${target} ms ${p99 <= target ? 'PASS' : 'MISS'}`;
  return (
    `p50 ${at(0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${at(1).toFixed(1)} ms ` +
    `(${times.length} realms${verdict})`
  );
}

/**
 * How the slowest 1% of `times` came: a stall of the server (a major garbage collection) slows
 * every request in flight at once, and when the stalls are many, the p99 is theirs.
 */
function bursts(times: readonly Timed[]): string {
  const slowest = [...times]
    .sort((a, b) => b.tookMs - a.tookMs)
    .slice(0, Math.ceil(times.length / 100))
    .sort((a, b) => a.startedMs - b.startedMs);
  const count = slowest.filter(
    (each, index) =>
      index === 0 || each.startedMs - (slowest[index - 1] as Timed).startedMs > BURST_GAP_MS,
  ).length;
  return (
    `${slowest.length} requests, sent in ${count} bursts (each request at most ` +
    `${BURST_GAP_MS} ms after the one before)`
  );
}

function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
