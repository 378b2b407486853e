import type { LoadResult } from './load.js';
import type { ServerName } from './server-names.js';
import type { GrantType } from './token-request.js';

export interface Measurement extends LoadResult {
  /** CPU time of the server process (all its threads) per answered request. */
  readonly serverCpuMicrosPerRequest: number;
  /** CPU time of the load generator (this process) per request: what the client side costs. */
  readonly loadCpuMicrosPerRequest: number;
}

export const SERVER_LABELS: Record<ServerName, string> = {
  ours: 'gatehouse (fastify, node-crypto)',
  ceiling: 'bare fastify (fixed JSON)',
  'oidc-provider': 'oidc-provider v9',
};

/**
 * What ours must reach relative to another server: the targets of this project, set for the
 * client_credentials request only. The other scenarios report their ratios without a target.
 */
export const TARGETS: ReadonlyMap<
  GrantType,
  ReadonlyArray<{ against: ServerName; atLeast: number }>
> = new Map([
  [
    'client_credentials',
    [
      { against: 'ceiling', atLeast: 0.6 },
      { against: 'oidc-provider', atLeast: 3 },
    ],
  ],
]);

export function resultTable(results: ReadonlyMap<ServerName, Measurement>): string {
  const rows = [...results].map(([name, r]) => [
    SERVER_LABELS[name],
    formatNumber(r.requestsPerSecond, 0),
    formatNumber(r.p50Ms, 1),
    formatNumber(r.p99Ms, 1),
    formatNumber(r.serverCpuMicrosPerRequest, 0),
    formatNumber(r.loadCpuMicrosPerRequest, 0),
    formatNumber(r.ok, 0),
    formatNumber(r.failures, 0),
  ]);
  return table(
    [
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server CPU µs/req',
      'load CPU µs/req',
      '2xx',
      'failed',
    ],
    rows,
  );
}

/**
 * For each other server measured beside ours: the throughput ratio ours / other, with PASS or MISS
 * where the scenario has a target for it, and the ratio of server CPU per request other / ours
 * (how many times cheaper ours is per request; the steadier number on a shared machine).
 */
export function ratioLines(
  scenario: GrantType,
  results: ReadonlyMap<ServerName, Measurement>,
): string[] {
  const ours = results.get('ours');
  if (!ours) return [];
  return [...results].flatMap(([against, other]) => {
    if (against === 'ours') return [];
    const ratio = ours.requestsPerSecond / other.requestsPerSecond;
    const target = TARGETS.get(scenario)?.find((each) => each.against === against);
    const verdict = target
      ? `target >= ${String(target.atLeast).padEnd(3)}   ${ratio >= target.atLeast ? 'PASS' : 'MISS'}`
      : '(no target)';
    const cpu = other.serverCpuMicrosPerRequest / ours.serverCpuMicrosPerRequest;
    return [
      `${`ours / ${against}`.padEnd(22)} ${ratio.toFixed(2).padStart(6)}   ${verdict}`,
      `${`  server CPU per request, ${against} / ours`.padEnd(45)} ${cpu.toFixed(2).padStart(6)}`,
    ];
  });
}

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
