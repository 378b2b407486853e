import type { LoadResult } from './load.js';
import type { ServerName } from './server-names.js';

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

/** What ours must reach relative to another server; the targets of this project. */
export const TARGETS: ReadonlyArray<{ against: ServerName; atLeast: number; label: string }> = [
  { against: 'ceiling', atLeast: 0.6, label: 'ours / ceiling' },
  { against: 'oidc-provider', atLeast: 3, label: 'ours / oidc-provider' },
];

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

/** One line per target whose two servers were both measured: the ratio and PASS or MISS. */
export function targetLines(results: ReadonlyMap<ServerName, Measurement>): string[] {
  const ours = results.get('ours');
  if (!ours) return [];
  return TARGETS.flatMap(({ against, atLeast, label }) => {
    const other = results.get(against);
    if (!other) return [];
    const ratio = ours.requestsPerSecond / other.requestsPerSecond;
    const verdict = ratio >= atLeast ? 'PASS' : 'MISS';
    return [
      `${label.padEnd(22)} ${ratio.toFixed(2).padStart(6)}   target >= ${atLeast}   ${verdict}`,
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
