import { migrate } from '@gatehouse-oidc/store-postgres';
import { deleteRedisKeys, dropPostgresStore, uniquePrefix } from './service-admin.js';
import { POSTGRES, REDIS, type Service, serviceUrl } from './services.js';

/**
 * A shared store of the standalone server, on the real service, under a table or key prefix of
 * its own so that test files and runs never see each other's records.
 */
export interface StoreUnderTest {
  /** `PostgreSQL` or `Redis`. */
  readonly name: string;
  /** Where the service listens, for a proxy in front of it. */
  readonly address: { host: string; port: number };
  /**
   * The `store` and `store_options` of a server config; with `port`, the URL names that port on
   * the loopback address instead (a proxy in front of the service).
   */
  settings(options?: { port?: number; timeoutMs?: number }): {
    store: string;
    store_options: Record<string, unknown>;
  };
  /** Creates the schema, when the store has one. */
  migrate(): Promise<void>;
  /** Removes everything stored under the prefix. */
  cleanUp(): Promise<void>;
}

/**
 * One entry per shared store, with `store` undefined when its service is absent (the suite is
 * then skipped after one loud line; under CI=true absence fails instead, see services.ts).
 */
export async function storesUnderTest(
  label: string,
): Promise<Array<{ name: string; store: StoreUnderTest | undefined }>> {
  const [postgresUrl, redisUrl] = await Promise.all([serviceUrl(POSTGRES), serviceUrl(REDIS)]);
  return [
    { name: POSTGRES.name, store: postgresUrl ? postgresStore(postgresUrl, label) : undefined },
    { name: REDIS.name, store: redisUrl ? redisStore(redisUrl, label) : undefined },
  ];
}

function postgresStore(url: string, label: string): StoreUnderTest {
  const tablePrefix = uniquePrefix(label);
  return {
    name: POSTGRES.name,
    address: addressOf(url, POSTGRES),
    settings: ({ port, timeoutMs } = {}) => ({
      store: viaPort(url, port),
      store_options: {
        table_prefix: tablePrefix,
        ...(timeoutMs !== undefined && { timeout_ms: timeoutMs }),
      },
    }),
    migrate: async () => {
      await migrate({ connectionString: url, tablePrefix });
    },
    cleanUp: () => dropPostgresStore(url, tablePrefix),
  };
}

function redisStore(url: string, label: string): StoreUnderTest {
  const keyPrefix = `${uniquePrefix(label)}:`;
  return {
    name: REDIS.name,
    address: addressOf(url, REDIS),
    settings: ({ port, timeoutMs } = {}) => ({
      store: viaPort(url, port),
      store_options: {
        key_prefix: keyPrefix,
        ...(timeoutMs !== undefined && { timeout_ms: timeoutMs }),
      },
    }),
    migrate: async () => {},
    cleanUp: () => deleteRedisKeys(url, keyPrefix),
  };
}

function addressOf(url: string, service: Service): { host: string; port: number } {
  const { hostname, port } = new URL(url);
  return { host: hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(port || service.defaultPort) };
}

function viaPort(url: string, port: number | undefined): string {
  if (port === undefined) return url;
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return proxied.href;
}

/**
 * A store on servers a test started itself (a Redis Cluster or Sentinel group, a PostgreSQL
 * primary and standby), named by the URL the standalone server takes; it lives as long as the
 * servers, so clean-up is theirs.
 */
export function storeAt(name: string, url: string, timeoutMs: number): StoreUnderTest {
  const postgres = url.startsWith('postgres');
  const prefix = uniquePrefix('scale');
  const [, host = '127.0.0.1', port = '0'] = /:\/\/(?:[^@/]*@)?([^:,/]+):(\d+)/.exec(url) ?? [];
  return {
    name,
    address: { host, port: Number(port) },
    settings: () => ({
      store: url,
      store_options: {
        ...(postgres ? { table_prefix: prefix } : { key_prefix: prefix }),
        timeout_ms: timeoutMs,
      },
    }),
    migrate: async () => {
      if (postgres) await migrate({ connectionString: url, tablePrefix: prefix });
    },
    cleanUp: async () => {},
  };
}
