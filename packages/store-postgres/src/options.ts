import { ConfigError, type ConfigIssue } from '@gatehouse-oidc/core';
import { parseHosts } from './hosts.js';
import { DEFAULT_TABLE_PREFIX, prefixProblem } from './schema.js';

export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:port/database`, with libpq-style parameters such as
   * `?sslmode=require` or `?options=-c%20search_path%3Dauth` (a schema other than `public`).
   * Several hosts, tried in order, as libpq takes them: `postgres://…@h1:5432,h2:5432/database`;
   * with `?target_session_attrs=read-write` only one that accepts writes (the primary) will do.
   */
  connectionString: string;
  /** Prefix of the table and sequence names: `{prefix}records`, `{prefix}revisions`. */
  tablePrefix?: string;
  /** Connections per instance. */
  poolSize?: number;
  /**
   * Bound on each statement, on waiting for a connection, and on connecting: past it the store
   * throws `StoreUnavailableError` and the provider answers 503.
   */
  statementTimeoutMs?: number;
  /** How often expired rows are deleted, in bounded batches; 0 turns the sweep off. */
  sweepIntervalMs?: number;
}

export type ResolvedOptions = Required<PostgresStoreOptions>;

export const DEFAULTS = {
  tablePrefix: DEFAULT_TABLE_PREFIX,
  poolSize: 10,
  statementTimeoutMs: 2_000,
  sweepIntervalMs: 60_000,
} as const;

const MAX_POOL_SIZE = 1_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_SWEEP_INTERVAL_MS = 86_400_000;

/** The options with defaults filled in; a ConfigError naming every invalid one otherwise. */
export function resolveOptions(input: PostgresStoreOptions): ResolvedOptions {
  const options = { ...DEFAULTS, ...withoutUndefined(input) };
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });

  // The connection string holds the password: never echo it.
  if (typeof options.connectionString !== 'string' || !parseHosts(options.connectionString))
    problem(
      'connectionString',
      'must be a postgres:// or postgresql:// URL (several hosts as host:port,host:port; target_session_attrs any or read-write)',
    );
  const prefix = options.tablePrefix;
  const prefixIssue =
    typeof prefix === 'string' ? prefixProblem(prefix) : 'must be a string, e.g. "gatehouse_"';
  if (prefixIssue) problem('tablePrefix', prefixIssue);
  if (!isIntegerIn(options.poolSize, 1, MAX_POOL_SIZE))
    problem('poolSize', `must be an integer from 1 to ${MAX_POOL_SIZE}`);
  if (!isIntegerIn(options.statementTimeoutMs, 1, MAX_TIMEOUT_MS))
    problem('statementTimeoutMs', `must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  if (!isIntegerIn(options.sweepIntervalMs, 0, MAX_SWEEP_INTERVAL_MS))
    problem('sweepIntervalMs', `must be an integer from 0 (off) to ${MAX_SWEEP_INTERVAL_MS}`);

  if (issues.length > 0) throw new ConfigError(issues);
  return options as ResolvedOptions;
}

const isIntegerIn = (value: unknown, min: number, max: number) =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

function withoutUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
