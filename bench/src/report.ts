import { availableParallelism } from 'node:os';
import type { RedisServerStats } from '../../test/support/service-admin.js';
import { median } from './cpu-rounds.js';
import type { LoadResult } from './load.js';
import type { ScenarioName } from './scenarios.js';
import { type ServerName, STORE_SERVICES } from './server-names.js';

export interface Measurement extends LoadResult {
  /** CPU time of the server process (all its threads) per answered request. */
  readonly serverCpuMicrosPerRequest: number;
  /** CPU time of the load generator (this process) per request: what the client side costs. */
  readonly loadCpuMicrosPerRequest: number;
  /**
   * Calls to the server's Store per request over the measured run, by method: one round trip
   * each on PostgreSQL and Redis. Only for ours, on every store.
   */
  readonly storeOpsPerRequest?: Readonly<Record<string, number>>;
  /**
   * What the Redis server did per request over the measured run (ours on Redis only): its CPU,
   * the commands it ran and its reads from client sockets (round trips, several requests' commands
   * arriving together when ioredis pipelines them). Counts the whole server: any other client's
   * work at the same time is in it.
   */
  readonly servicePerRequest?: RedisServerStats;
}

export const SERVER_LABELS: Record<ServerName, string> = {
  ours: 'gatehouse (fastify, node-crypto)',
  'ours-postgres': 'gatehouse on PostgreSQL (pg)',
  'ours-redis': 'gatehouse on Redis (ioredis)',
  'ours-standalone': 'gatehouse serve (standalone, defaults)',
  ceiling: 'bare fastify (fixed JSON)',
  'hand-written': 'hand-written (the flow alone)',
  'oidc-provider': 'oidc-provider v9',
  'better-auth': 'better-auth 1.7 oauth-provider',
  'better-auth-postgres': 'better-auth 1.7 on PostgreSQL (pg)',
};

/**
 * Ours on a shared store, and the standalone server, are compared with ours in memory (the
 * Fastify binding); every other server with ours.
 */
const isStoreVariant = (name: ServerName) => name.startsWith('ours-');

/**
 * What one server must reach relative to another in throughput: `server / against >= atLeast`.
 * Issue 12: no measured flow below 4× oidc-provider (the foundation issue asked 3× for
 * client_credentials). The foundation issue's ceiling target for client_credentials, and the
 * shared-store issue's: ours on Redis within 0.7 of ours in memory, for both requests it measures.
 */
const FOUR_TIMES_OIDC_PROVIDER = { server: 'ours', against: 'oidc-provider', atLeast: 4 } as const;
export const TARGETS: ReadonlyMap<
  ScenarioName,
  ReadonlyArray<{ server: ServerName; against: ServerName; atLeast: number }>
> = new Map([
  [
    'client_credentials',
    [
      { server: 'ours', against: 'ceiling', atLeast: 0.6 },
      FOUR_TIMES_OIDC_PROVIDER,
      { server: 'ours-redis', against: 'ours', atLeast: 0.7 },
    ],
  ],
  [
    'authorization_code',
    [FOUR_TIMES_OIDC_PROVIDER, { server: 'ours-redis', against: 'ours', atLeast: 0.7 }],
  ],
  ['refresh_token', [FOUR_TIMES_OIDC_PROVIDER]],
  ['ciba_initiation', [FOUR_TIMES_OIDC_PROVIDER]],
]);

/**
 * At most `atMost` store operations (round trips) per request on `server`: client_credentials
 * under the `store` retention policy, on each shared store.
 */
export const STORE_OP_TARGETS: ReadonlyMap<
  ScenarioName,
  ReadonlyArray<{ server: ServerName; atMost: number }>
> = new Map([
  [
    'client_credentials',
    [
      { server: 'ours-postgres', atMost: 1 },
      { server: 'ours-redis', atMost: 1 },
    ],
  ],
]);

/**
 * One row per server, its server CPU per request first (all threads of its process, the load
 * generator apart: the figure that says what the code costs), throughput beside it.
 */
export function resultTable(results: ReadonlyMap<ServerName, Measurement>): string {
  const rows = [...results].map(([name, r]) => [
    SERVER_LABELS[name],
    formatNumber(r.serverCpuMicrosPerRequest, 0),
    formatNumber(r.requestsPerSecond, 0),
    r.storeOpsPerRequest ? formatNumber(totalOf(r.storeOpsPerRequest), 2) : '-',
    formatNumber(r.p50Ms, 1),
    formatNumber(r.p99Ms, 1),
    formatNumber(r.loadCpuMicrosPerRequest, 0),
    formatNumber(r.ok, 0),
    formatNumber(r.failures, 0),
  ]);
  return table(
    [
      'server',
      'server CPU µs/req',
      'req/s',
      'store ops/req',
      'p50 ms',
      'p99 ms',
      'load CPU µs/req',
      '2xx',
      'failed',
    ],
    rows,
  );
}

/** One server's throughput against another's, with the target the scenario sets for the pair. */
interface Comparison {
  readonly server: ServerName;
  readonly against: ServerName;
  /** Throughput, server / against. */
  readonly ratio: number;
  /** Server CPU per request, against / server: how many times cheaper `server` is per request. */
  readonly cpuRatio: number;
  /** Server CPU per request, server − against, in µs (for a shared store: what it adds to ours). */
  readonly cpuDifference: number;
  /** All CPU per request (server, Redis, load), against / server; when Redis was counted. */
  readonly allCpuRatio?: number;
  readonly atLeast?: number;
}

/**
 * Each other server measured beside ours, compared with ours (ours on a shared store: ours in
 * memory compared with it), in the order measured. The ceiling only where the scenario sets a
 * target against it: elsewhere it is there for the floor (floor.ts), and ours doing a flow's
 * work against a route doing none says nothing more.
 */
function comparisons(
  scenario: ScenarioName,
  results: ReadonlyMap<ServerName, Measurement>,
): Comparison[] {
  const ours = results.get('ours');
  if (!ours) return [];
  const targets = TARGETS.get(scenario) ?? [];
  return [...results].flatMap(([name, measured]) => {
    if (name === 'ours') return [];
    if (name === 'ceiling' && !targets.some(({ against }) => against === 'ceiling')) return [];
    const [server, against] = isStoreVariant(name)
      ? ([name, 'ours'] as const)
      : (['ours', name] as const);
    const [first, second] = isStoreVariant(name) ? [measured, ours] : [ours, measured];
    const target = targets.find((each) => each.server === server && each.against === against);
    return [
      {
        server,
        against,
        ratio: first.requestsPerSecond / second.requestsPerSecond,
        cpuRatio: second.serverCpuMicrosPerRequest / first.serverCpuMicrosPerRequest,
        cpuDifference: first.serverCpuMicrosPerRequest - second.serverCpuMicrosPerRequest,
        // With both cores busy, throughput follows the CPU all processes spend per request.
        ...(first.servicePerRequest ? { allCpuRatio: totalCpuOf(second) / totalCpuOf(first) } : {}),
        ...(target ? { atLeast: target.atLeast } : {}),
      },
    ];
  });
}

const pairLabel = ({ server, against }: Comparison) => `${server} / ${against}`.padEnd(22);

const verdictOf = ({ atLeast }: Comparison, ratio: number) =>
  atLeast === undefined
    ? '(no target)'
    : `target >= ${String(atLeast).padEnd(3)}   ${ratio >= atLeast ? 'PASS' : 'MISS'}`;

/**
 * For each other server measured beside ours: the throughput ratio ours / other (ours on a
 * shared store / ours in memory), with PASS or MISS where the scenario has a target for it, and
 * the ratio of server CPU per request in the other direction (how many times cheaper the first
 * is per request; the steadier number on a shared machine).
 */
export function ratioLines(
  scenario: ScenarioName,
  results: ReadonlyMap<ServerName, Measurement>,
  cores = availableParallelism(),
): string[] {
  return comparisons(scenario, results).flatMap((comparison) => {
    const { server, against, ratio, cpuRatio, allCpuRatio } = comparison;
    const lines = [
      `${pairLabel(comparison)} ${ratio.toFixed(2).padStart(6)}   ${verdictOf(comparison, ratio)}`,
      `${`  server CPU per request, ${against} / ${server}`.padEnd(47)} ${cpuRatio.toFixed(2).padStart(6)}`,
    ];
    if (allCpuRatio !== undefined) {
      lines.push(
        `${`  all CPU per request (server, Redis, load), ${against} / ${server}`.padEnd(47)} ${allCpuRatio.toFixed(2).padStart(6)}`,
      );
    }
    const budget = budgetLine(comparison, results, cores);
    if (budget) lines.push(budget);
    return lines;
  });
}

/**
 * What a target leaves per request when every core is busy, as here (the load generator shares
 * them): the cores' time divided by the rate the target asks for, beside what the first server's
 * request cost all processes (its own, Redis's when counted, the load generator's). Steadier
 * than the throughput ratio, and it shows how far off a missed target is.
 */
function budgetLine(
  { server, against, atLeast }: Comparison,
  results: ReadonlyMap<ServerName, Measurement>,
  cores: number,
): string | undefined {
  const first = results.get(server);
  const second = results.get(against);
  if (atLeast === undefined || !first || !second) return undefined;
  const budget = (cores * 1_000_000) / (atLeast * second.requestsPerSecond);
  const parts = [
    `server ${first.serverCpuMicrosPerRequest.toFixed(0)}`,
    ...(first.servicePerRequest ? [`Redis ${first.servicePerRequest.cpuMicros.toFixed(0)}`] : []),
    `load ${first.loadCpuMicrosPerRequest.toFixed(0)}`,
  ];
  return (
    `${`  CPU per request at the target, ${cores} cores`.padEnd(47)} ${budget.toFixed(0).padStart(6)} µs` +
    `   ${server} used ${totalCpuOf(first).toFixed(0)} (${parts.join(', ')})`
  );
}

/**
 * With several rounds (BENCH_ROUNDS), each pair's throughput ratio over the rounds: the median,
 * judged against the target, then every round's ratio in order. On a shared machine one round
 * can land on a busy moment for one server and not the other; the median of alternating rounds
 * is what a target is judged on.
 */
export function medianRatioLines(
  scenario: ScenarioName,
  rounds: ReadonlyArray<ReadonlyMap<ServerName, Measurement>>,
): string[] {
  const byPair = new Map<string, { comparison: Comparison; ratios: number[] }>();
  for (const results of rounds) {
    for (const comparison of comparisons(scenario, results)) {
      const key = pairLabel(comparison);
      const entry = byPair.get(key) ?? { comparison, ratios: [] };
      entry.ratios.push(comparison.ratio);
      byPair.set(key, entry);
    }
  }
  return [...byPair.values()].map(({ comparison, ratios }) =>
    medianOverRounds(pairLabel(comparison), ratios, verdictOf(comparison, median(ratios))),
  );
}

/** A ratio over the rounds: `label`, its median, what that is judged against, each round's. */
function medianOverRounds(label: string, ratios: readonly number[], verdict: string): string {
  const each = ratios.map((ratio) => ratio.toFixed(2)).join(' ');
  return `${label} ${median(ratios).toFixed(2).padStart(6)}   ${verdict}   (median of ${ratios.length}: ${each})`;
}

/**
 * Issue 24's targets, on server CPU per request (`against / server >= atLeast`, judged on the
 * median of alternating rounds), by the server ours is compared with: ours at most a quarter of
 * oidc-provider's for the token flows and a third for a CIBA initiation, below better-auth's
 * (either database) on every shared flow; and ours on Redis at most 1.5× ours in memory for the
 * code exchange (ours / ours-redis at least 2/3).
 */
const TOKEN_FLOW_CPU_TARGETS = { 'oidc-provider': 4, 'better-auth': 1, 'better-auth-postgres': 1 };
const CPU_TARGETS: ReadonlyMap<
  ScenarioName,
  Readonly<Partial<Record<ServerName, number>>>
> = new Map<ScenarioName, Readonly<Partial<Record<ServerName, number>>>>([
  ['client_credentials', TOKEN_FLOW_CPU_TARGETS],
  ['authorization_code', { ...TOKEN_FLOW_CPU_TARGETS, 'ours-redis': 2 / 3 }],
  ['refresh_token', TOKEN_FLOW_CPU_TARGETS],
  ['ciba_initiation', { 'oidc-provider': 3 }],
]);

/**
 * With several rounds (BENCH_ROUNDS): each server's server CPU per request, the median over the
 * rounds then every round's figure, in the order measured; then for each pair, the ratio of
 * their CPU per request (`against / server`, how many times cheaper the first is) over the
 * rounds, judged against issue 24's target on its median. Every server measured in the rounds
 * has its row, better-auth's too.
 */
export function medianCpuLines(
  scenario: ScenarioName,
  rounds: ReadonlyArray<ReadonlyMap<ServerName, Measurement>>,
): string[] {
  const byServer = new Map<ServerName, number[]>();
  for (const results of rounds) {
    for (const [name, measured] of results) {
      byServer.set(name, [...(byServer.get(name) ?? []), measured.serverCpuMicrosPerRequest]);
    }
  }
  const serverLines = [...byServer].map(([name, figures]) => {
    const each = figures.map((figure) => figure.toFixed(0)).join(' ');
    return `${SERVER_LABELS[name].padEnd(40)} ${median(figures).toFixed(0).padStart(6)} µs   (median of ${figures.length}: ${each})`;
  });
  const byPair = new Map<
    string,
    { comparison: Comparison; ratios: number[]; differences: number[] }
  >();
  for (const results of rounds) {
    for (const comparison of comparisons(scenario, results)) {
      const key = `${comparison.against} / ${comparison.server}`;
      const entry = byPair.get(key) ?? { comparison, ratios: [], differences: [] };
      entry.ratios.push(comparison.cpuRatio);
      entry.differences.push(comparison.cpuDifference);
      byPair.set(key, entry);
    }
  }
  const pairLines = [...byPair].flatMap(([key, { comparison, ratios, differences }]) => {
    const middle = median(ratios);
    const other = comparison.server === 'ours' ? comparison.against : comparison.server;
    const atLeast = CPU_TARGETS.get(scenario)?.[other];
    const verdict =
      atLeast === undefined
        ? '(no target)'
        : `target >= ${formatTarget(atLeast).padEnd(5)} ${middle >= atLeast ? 'PASS' : 'MISS'}`;
    const lines = [medianOverRounds(`server CPU per request, ${key}`.padEnd(47), ratios, verdict)];
    // What the shared store adds, apart: a cheaper core raises the ratio without the store
    // costing more.
    if (comparison.server in STORE_SERVICES) {
      const added = differences.map((difference) => difference.toFixed(0)).join(' ');
      lines.push(
        `${`  ${comparison.server} adds to ${comparison.against}`.padEnd(47)} ${median(differences).toFixed(0).padStart(6)} µs (median of ${differences.length}: ${added})`,
      );
    }
    return lines;
  });
  return [...serverLines, ...pairLines, ...handWrittenLines(scenario, rounds)];
}

/**
 * The hand-written server (the flow's work and nothing else) against oidc-provider, over the
 * rounds, beside the target ours has against it: what any implementation of the flow reaches.
 */
function handWrittenLines(
  scenario: ScenarioName,
  rounds: ReadonlyArray<ReadonlyMap<ServerName, Measurement>>,
): string[] {
  const atLeast = CPU_TARGETS.get(scenario)?.['oidc-provider'];
  const ratios = rounds.flatMap((results) => {
    const handWritten = results.get('hand-written');
    const peer = results.get('oidc-provider');
    return handWritten && peer
      ? [peer.serverCpuMicrosPerRequest / handWritten.serverCpuMicrosPerRequest]
      : [];
  });
  if (atLeast === undefined || ratios.length === 0) return [];
  return [
    medianOverRounds(
      'server CPU per request, oidc-provider / hand-written'.padEnd(47),
      ratios,
      `(ours' target >= ${formatTarget(atLeast)})`,
    ),
  ];
}

/** Whole targets as they are; others to three decimals, so a miss never prints as the target. */
const formatTarget = (atLeast: number) =>
  Number.isInteger(atLeast) ? String(atLeast) : atLeast.toFixed(3);

/**
 * For each server that counts its store operations: the operations per request, with PASS or
 * MISS where the scenario has a bound for that server, and the calls by method. The bound is
 * checked on the figure as printed (two decimals): background work such as the signing keys'
 * refresh (a read every 30 s) is a few hundred-thousandths of an operation per request, and is
 * not what the bound is about.
 */
export function storeOpLines(
  scenario: ScenarioName,
  results: ReadonlyMap<ServerName, Measurement>,
): string[] {
  return [...results].flatMap(([name, measured]) => {
    const perMethod = measured.storeOpsPerRequest;
    if (!perMethod) return [];
    const total = totalOf(perMethod).toFixed(2);
    const target = STORE_OP_TARGETS.get(scenario)?.find((each) => each.server === name);
    const verdict = target
      ? `target <= ${String(target.atMost).padEnd(3)}   ${Number(total) <= target.atMost ? 'PASS' : 'MISS'}   `
      : '';
    const methods = Object.entries(perMethod)
      .filter(([, count]) => count > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([method, count]) => `${method} ${count < 0.005 ? '<0.01' : count.toFixed(2)}`)
      .join(', ');
    return [
      `${`${name} store ops/req`.padEnd(28)} ${total.padStart(6)}   ${verdict}(${methods || 'none'})`,
    ];
  });
}

/** For each server measured on Redis: what the Redis server did per request. */
export function serviceLines(results: ReadonlyMap<ServerName, Measurement>): string[] {
  return [...results].flatMap(([name, { servicePerRequest: service }]) =>
    service
      ? [
          `${`${name} Redis per request`.padEnd(28)} ${service.reads.toFixed(2).padStart(6)} reads (round trips), ` +
            `${service.commands.toFixed(2)} commands, ${service.cpuMicros.toFixed(0)} µs CPU`,
        ]
      : [],
  );
}

const totalCpuOf = (measured: Measurement) =>
  measured.serverCpuMicrosPerRequest +
  measured.loadCpuMicrosPerRequest +
  (measured.servicePerRequest?.cpuMicros ?? 0);

const totalOf = (perMethod: Readonly<Record<string, number>>) =>
  Object.values(perMethod).reduce((sum, count) => sum + count, 0);

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const formatNumber = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
