import { ConfigError, type ConfigIssue } from '@gatehouse-oidc/core';
import { parseRedisUrl, type RedisTopology } from './topology.js';

export interface RedisStoreOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS; a Redis Cluster as
   * `redis+cluster://[[user]:password@]host:port,host:port…` (its seed nodes); the primary of a
   * Sentinel group as `redis+sentinel://[[user]:password@]host:port,host:port…/group[/db]` (its
   * sentinels). `rediss+cluster://` and `rediss+sentinel://` for TLS.
   */
  url: string;
  /** Put before every key, so several deployments can share one Redis. Default `gatehouse:`. */
  keyPrefix?: string;
  /**
   * How long a call waits for Redis before it fails with `StoreUnavailableError`: for a reply on
   * a live connection, or for the connection to come back when it is down. Default 1000.
   */
  commandTimeoutMs?: number;
  /**
   * How many replicas must acknowledge a write before the store reports it done (Redis's
   * `WAIT`), so that a primary failing over cannot take a consumed code, a rotated refresh token
   * or a revocation with it: up to this many of the primary's connected replicas (a replica that
   * is gone is not waited for). A write they do not acknowledge within half of
   * `commandTimeoutMs` fails with `StoreUnavailableError`. Default 1 on a Cluster or a Sentinel
   * group, 0 on one server.
   */
  waitForReplicas?: number;
}

export interface ValidRedisStoreOptions {
  topology: RedisTopology;
  keyPrefix: string;
  commandTimeoutMs: number;
  waitForReplicas: number;
}

const KNOWN = new Set(['url', 'keyPrefix', 'commandTimeoutMs', 'waitForReplicas']);
/** More than any deployment has replicas of one primary. */
const MAX_REPLICAS = 16;
const MAX_TIMEOUT_MS = 60_000;

/** Why `prefix` cannot prefix the store's keys, or undefined when it can. */
export function keyPrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return 'must be a non-empty string';
  // A brace would change which part of a key Redis Cluster hashes (see keys.ts).
  if (/[{}]/.test(prefix)) return 'must not contain { or }';
  return undefined;
}

/** The options with defaults filled in; a ConfigError naming every invalid one otherwise. */
export function validateOptions(options: RedisStoreOptions): ValidRedisStoreOptions {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError([{ path: '', message: 'RedisStore options must be an object' }]);
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });

  for (const name of Object.keys(options))
    if (!KNOWN.has(name)) problem(name, `unknown option (known: ${[...KNOWN].join(', ')})`);
  const { url, keyPrefix = 'gatehouse:', commandTimeoutMs = 1000 } = options;
  // The URL may carry a password: the message describes it without quoting it.
  const topology = typeof url === 'string' ? parseRedisUrl(url) : undefined;
  if (topology === undefined) problem('url', URL_PROBLEM);
  const prefixIssue =
    typeof keyPrefix === 'string' ? keyPrefixProblem(keyPrefix) : 'must be a non-empty string';
  if (prefixIssue) problem('keyPrefix', prefixIssue);
  if (
    typeof commandTimeoutMs !== 'number' ||
    !Number.isInteger(commandTimeoutMs) ||
    commandTimeoutMs < 1 ||
    commandTimeoutMs > MAX_TIMEOUT_MS
  )
    problem('commandTimeoutMs', `must be an integer from 1 to ${MAX_TIMEOUT_MS} (milliseconds)`);

  const { waitForReplicas = topology === undefined || topology.kind === 'standalone' ? 0 : 1 } =
    options;
  if (
    typeof waitForReplicas !== 'number' ||
    !Number.isInteger(waitForReplicas) ||
    waitForReplicas < 0 ||
    waitForReplicas > MAX_REPLICAS
  )
    problem('waitForReplicas', `must be an integer from 0 to ${MAX_REPLICAS}`);

  if (issues.length > 0) throw new ConfigError(issues);
  return { topology, keyPrefix, commandTimeoutMs, waitForReplicas } as ValidRedisStoreOptions;
}

const URL_PROBLEM =
  'must be a redis:// or rediss:// URL, redis+cluster://host:port,… (seed nodes) or redis+sentinel://host:port,…/group (sentinels)';
