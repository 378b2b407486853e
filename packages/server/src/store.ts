import { MemoryStore, type Store } from '@gatehouse-oidc/core';
import { type MigrationResult, migrate, PostgresStore } from '@gatehouse-oidc/store-postgres';
import { parseRedisUrl, RedisStore } from '@gatehouse-oidc/store-redis';
import type { ServerConfig } from './config/server-config.js';

export type StoreKind = 'memory' | 'postgres' | 'redis';

/** What the server needs from its config to open its store. */
export type StoreConfig = Pick<ServerConfig, 'store' | 'store_options'>;

/** The kind of store a config's `store` names, or a problem with it (never quoting the value). */
export function parseStoreValue(value: string): { kind: StoreKind } | { problem: string } {
  if (value === 'memory') return { kind: 'memory' };
  // Several hosts (`postgres://h1:5432,h2:5432/db`, `redis+cluster://h1:7000,h2:7000`) are no
  // WHATWG URL: the scheme alone says which store, and the store reads the rest.
  const multiHost = MULTI_HOST_SCHEME.exec(value)?.[1];
  if (multiHost !== undefined) {
    if (multiHost.startsWith('postgres')) return { kind: 'postgres' };
    return parseRedisUrl(value)
      ? { kind: 'redis' }
      : {
          problem: `a ${multiHost}:// URL must list host:port nodes${multiHost.endsWith('sentinel') ? ' and name the group (/group)' : ''}`,
        };
  }
  const url = URL.canParse(value) ? new URL(value) : undefined;
  switch (url?.protocol) {
    case 'postgres:':
    case 'postgresql:':
      return { kind: 'postgres' };
    case 'redis:':
    case 'rediss:':
      return url.hostname === ''
        ? { problem: 'a redis:// URL must name a host' }
        : { kind: 'redis' };
    default:
      return { problem: 'must be "memory", a postgres:// URL or a redis:// URL' };
  }
}

/** The schemes a URL naming several hosts may have, and a PostgreSQL URL with a host list. */
const MULTI_HOST_SCHEME =
  /^(rediss?\+cluster|rediss?\+sentinel|postgres(?=:\/\/[^/?#]*,)|postgresql(?=:\/\/[^/?#]*,)):\/\//;

/** The parts of a store URL, read without a URL parser, which takes one host only. */
function urlParts(value: string): { userinfo: string; hosts: string; path: string } {
  const [, authority = '', path = ''] = /^[^:]+:\/\/([^/?#]*)([^?#]*)/.exec(value) ?? [];
  const at = authority.lastIndexOf('@');
  return { userinfo: authority.slice(0, at + 1), hosts: authority.slice(at + 1), path };
}

export function storeKind(value: string): StoreKind {
  const parsed = parseStoreValue(value);
  if ('problem' in parsed) throw new TypeError(`store ${parsed.problem}`);
  return parsed.kind;
}

/**
 * The store for operators' eyes: its kind, host, port and database, never the user name,
 * password or query parameters (libpq takes a `password` parameter too).
 */
export function describeStore(value: string): string {
  const kind = storeKind(value);
  if (kind === 'memory') return 'memory (this process only)';
  const { hosts, path } = urlParts(value);
  const topology = kind === 'redis' ? parseRedisUrl(value)?.kind : undefined;
  const name =
    kind === 'postgres'
      ? 'PostgreSQL'
      : topology === 'cluster'
        ? 'Redis Cluster'
        : topology === 'sentinel'
          ? 'Redis Sentinel'
          : 'Redis';
  const where = `${hosts}${path === '/' ? '' : path}`;
  return where === '' ? name : `${name} at ${where}`;
}

/**
 * A store error's message for the terminal, with the store URL's password (and the whole URL)
 * taken out in case a driver ever quotes them.
 */
export function storeErrorMessage(error: unknown, value: string): string {
  return redactStoreSecrets(error instanceof Error ? error.message : String(error), value);
}

/** `text` with the store URL `value`, and its password, replaced by `***`. */
export function redactStoreSecrets(text: string, value: string): string {
  if (value === 'memory') return text;
  const { userinfo } = urlParts(value);
  const colon = userinfo.indexOf(':');
  const password = colon === -1 ? '' : userinfo.slice(colon + 1, -1);
  const secrets = [value, password, safeDecode(password)].filter((secret) => secret !== '');
  return secrets.reduce((redacted, secret) => redacted.split(secret).join('***'), text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Opens the store the config names. Stores connect lazily: nothing is awaited here. */
export function createStore(config: StoreConfig, options: { now?: () => number } = {}): Store {
  const { store, store_options: settings } = config;
  switch (storeKind(store)) {
    case 'memory':
      return new MemoryStore({
        ...(options.now && { now: options.now }),
        ...(settings.max_bytes !== undefined && { maxBytes: settings.max_bytes }),
      });
    case 'postgres':
      return new PostgresStore(postgresOptions(config));
    case 'redis':
      return new RedisStore({
        url: store,
        ...(settings.key_prefix !== undefined && { keyPrefix: settings.key_prefix }),
        ...(settings.timeout_ms !== undefined && { commandTimeoutMs: settings.timeout_ms }),
        ...(settings.wait_for_replicas !== undefined && {
          waitForReplicas: settings.wait_for_replicas,
        }),
      });
  }
}

export type MigrationOutcome =
  | { kind: 'memory' | 'redis' }
  | ({ kind: 'postgres' } & MigrationResult);

/** Whether the config's store gets its schema created before it serves (PostgreSQL by default). */
export const createsSchemaOnStart = (config: StoreConfig): boolean =>
  storeKind(config.store) === 'postgres' && config.store_options.migrate_on_start;

/**
 * Creates the store's schema when it needs one (PostgreSQL), idempotently. Rejects with the
 * store's error (a `StoreUnavailableError` when the database cannot be reached).
 */
export async function migrateStore(config: StoreConfig): Promise<MigrationOutcome> {
  const kind = storeKind(config.store);
  if (kind !== 'postgres') return { kind };
  return { kind, ...(await migrate(postgresOptions(config))) };
}

/** One line saying what `migrateStore` did. */
export function describeMigration(config: StoreConfig, outcome: MigrationOutcome): string {
  switch (outcome.kind) {
    case 'memory':
      return 'nothing to migrate: the memory store keeps no schema';
    case 'redis':
      return 'nothing to migrate: the Redis store needs no schema, its keys are created as they are written';
    case 'postgres':
      return outcome.created
        ? `${describeStore(config.store)}: created table "${outcome.table}" and its indexes`
        : `${describeStore(config.store)}: table "${outcome.table}" already exists; its columns and indexes are in place`;
  }
}

function postgresOptions({ store, store_options: settings }: StoreConfig) {
  return {
    connectionString: store,
    ...(settings.table_prefix !== undefined && { tablePrefix: settings.table_prefix }),
    ...(settings.pool_size !== undefined && { poolSize: settings.pool_size }),
    ...(settings.timeout_ms !== undefined && { statementTimeoutMs: settings.timeout_ms }),
  };
}
