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

/** Drops the table and sequence a PostgreSQL store with this prefix created, if any. */
export async function dropPostgresStore(url: string, tablePrefix: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(tablePrefix)) throw new Error(`bad prefix ${tablePrefix}`);
  await sql(
    url,
    `DROP TABLE IF EXISTS "${tablePrefix}records"; DROP SEQUENCE IF EXISTS "${tablePrefix}revisions"`,
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
