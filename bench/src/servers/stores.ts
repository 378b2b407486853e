import { MemoryStore, type Store, StoreUnavailableError } from '@gatehouse-oidc/core';
import { migrate, PostgresStore } from '@gatehouse-oidc/store-postgres';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import {
  deleteRedisKeys,
  dropPostgresStore,
  type RedisServerStats,
  redisServerStats,
  uniquePrefix,
} from '../../../test/support/service-admin.js';
import { type BenchService, STORE_SERVICES } from '../server-names.js';

/** The store a server of ours runs on, and how to remove what the run left in it. */
export interface BenchStore {
  readonly store: Store;
  /** The table or key prefix of this run in a shared service; undefined in memory. */
  readonly prefix?: string;
  /** After the store is closed: drops the run's table, or deletes its keys. */
  cleanUp(): Promise<void>;
  /** The Redis server's own counters so far (Redis only: PostgreSQL has no such figures). */
  serviceStats?(): Promise<RedisServerStats>;
}

/** The service a store server needs does not answer: the bench skips that server. */
export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
}

/**
 * Sized for the minted pools: a refresh run holds ~100,000 live token sets, past the default
 * 256 MiB ceiling, where the store refuses new tokens with 503 (docs/security.md).
 */
const BENCH_MEMORY_STORE_BYTES = 4 * 1024 ** 3;

export function memoryStore(): BenchStore {
  return {
    store: new MemoryStore({ maxBytes: BENCH_MEMORY_STORE_BYTES }),
    cleanUp: async () => {},
  };
}

/** A table of this run's own in the bench's PostgreSQL, created by the package's `migrate`. */
export interface PostgresTable {
  readonly url: string;
  readonly tablePrefix: string;
  /** Drops the table. */
  cleanUp(): Promise<void>;
}

export async function postgresTable(): Promise<PostgresTable> {
  const service = STORE_SERVICES['ours-postgres'];
  const url = urlOf(service);
  const tablePrefix = uniquePrefix('bench');
  try {
    await migrate({ connectionString: url, tablePrefix });
  } catch (error) {
    throw unreachable(service, url, error);
  }
  return { url, tablePrefix, cleanUp: () => dropPostgresStore(url, tablePrefix) };
}

/**
 * A PostgresStore with the package's default options (pool of 10, statements prepared), on a
 * table of its own for this run.
 */
export async function postgresStore(): Promise<BenchStore> {
  const { url, tablePrefix, cleanUp } = await postgresTable();
  return {
    store: new PostgresStore({ connectionString: url, tablePrefix }),
    prefix: tablePrefix,
    cleanUp,
  };
}

/** A RedisStore with the package's default options, under a key prefix of its own for this run. */
export async function redisStore(): Promise<BenchStore> {
  const service = STORE_SERVICES['ours-redis'];
  const url = urlOf(service);
  const keyPrefix = `${uniquePrefix('bench')}:`;
  const store = new RedisStore({ url, keyPrefix });
  try {
    await store.ping();
  } catch (error) {
    await store.close();
    throw unreachable(service, url, error);
  }
  return {
    store,
    prefix: keyPrefix,
    cleanUp: () => deleteRedisKeys(url, keyPrefix),
    serviceStats: () => redisServerStats(url),
  };
}

const urlOf = (service: BenchService) => process.env[service.envVar] || service.defaultUrl;

function unreachable(service: BenchService, url: string, error: unknown): Error {
  if (!(error instanceof StoreUnavailableError)) return error as Error;
  // Host and port only: a URL may carry a password.
  const { hostname, port } = new URL(url);
  return new ServiceUnavailableError(
    `${service.name} does not answer at ${hostname}${port ? `:${port}` : ''} ` +
      `(${error.message}); start it there or set ${service.envVar}`,
  );
}
