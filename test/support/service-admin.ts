import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Set-up and clean-up of the real PostgreSQL and Redis that store tests share: each test file
 * works under a prefix of its own and removes what it wrote. The drivers are dependencies of the
 * store packages, not of the tests, so they are loaded from there.
 */

const driverOf = (workspacePackage: string) =>
  createRequire(
    fileURLToPath(new URL(`../../packages/${workspacePackage}/package.json`, import.meta.url)),
  );

/** The part of pg's Client these helpers use. */
interface SqlClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: () => void): void;
}

/** The part of ioredis's client these helpers use. */
interface RedisClient {
  scan(cursor: string, ...args: (string | number)[]): Promise<[string, string[]]>;
  unlink(...keys: string[]): Promise<number>;
  info(...sections: string[]): Promise<string>;
  quit(): Promise<unknown>;
}

/** A prefix no other run uses: lower-case letters, digits and `_`, fit for a table name. */
export function uniquePrefix(label: string): string {
  return `${label}_${randomBytes(5).toString('hex')}_`;
}

/** Runs one statement on its own connection. */
export async function sql(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const pg = driverOf('store-postgres')('pg') as { Client: new (options: object) => SqlClient };
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Drops the table, sequence and functions a PostgreSQL store with this prefix created, if any. */
export async function dropPostgresStore(url: string, tablePrefix: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(tablePrefix)) throw new Error(`bad prefix ${tablePrefix}`);
  await sql(
    url,
    `DROP TABLE IF EXISTS "${tablePrefix}caps", "${tablePrefix}records"; DROP SEQUENCE IF EXISTS "${tablePrefix}revisions";
     DROP FUNCTION IF EXISTS "${tablePrefix}grant_open"(text), "${tablePrefix}revoke_grant"(text, float8)`,
  );
}

/** Deletes every key under `keyPrefix`. */
export async function deleteRedisKeys(url: string, keyPrefix: string): Promise<void> {
  const { Redis } = driverOf('store-redis')('ioredis') as {
    Redis: new (url: string) => RedisClient;
  };
  const client = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await client.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await client.quit();
  }
}

/** How many keys there are under `keyPrefix`. */
export async function countRedisKeys(url: string, keyPrefix: string): Promise<number> {
  const { Redis } = driverOf('store-redis')('ioredis') as {
    Redis: new (url: string) => RedisClient;
  };
  const client = new Redis(url);
  try {
    let count = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      count += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return count;
  } finally {
    await client.quit();
  }
}

/** What a whole Redis server did since it started (every client's work, not one prefix's). */
export interface RedisServerStats {
  /** CPU time of the server process, user + system. */
  cpuMicros: number;
  /** Commands run, a script call counting once. */
  commands: number;
  /** Reads from client sockets: one per batch of commands received, a round trip's arrival. */
  reads: number;
}

export async function redisServerStats(url: string): Promise<RedisServerStats> {
  const { Redis } = driverOf('store-redis')('ioredis') as {
    Redis: new (url: string) => RedisClient;
  };
  const client = new Redis(url);
  try {
    const info = await client.info('cpu', 'stats');
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1]);
    return {
      cpuMicros: Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6),
      commands: field('total_commands_processed'),
      reads: field('total_reads_processed'),
    };
  } finally {
    await client.quit();
  }
}
