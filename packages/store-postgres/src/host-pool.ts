import { StoreUnavailableError } from '@gatehouse-oidc/core';
import type pg from 'pg';
import { hostLost } from './errors.js';
import { acceptsWrites, type Hosts } from './hosts.js';

/**
 * The connection pool of the host the store writes to, rebuilt when that host goes away or
 * turns read-only (a failover): the next call then finds the host to use afresh, trying the
 * connection string's hosts in order as libpq does, each that must accept writes checked with
 * `SHOW transaction_read_only`. With one host and no such check the pool is simply made again,
 * so connections to a host that was replaced at the same address (DNS, a virtual IP) go too.
 */
export class HostPool {
  readonly #hosts: Hosts;
  readonly #makePool: (connectionString: string) => pg.Pool;
  #pool: pg.Pool | undefined;
  #finding: Promise<pg.Pool> | undefined;
  #ended = false;

  constructor(hosts: Hosts, makePool: (connectionString: string) => pg.Pool) {
    this.#hosts = hosts;
    this.#makePool = makePool;
  }

  /** A connection of the current pool, and that pool, for `lost`. */
  async connect(): Promise<{ client: pg.PoolClient; pool: pg.Pool }> {
    const pool = this.#pool ?? (await this.#find());
    try {
      return { client: await pool.connect(), pool };
    } catch (error) {
      if (hostLost(error)) this.lost(pool);
      throw error;
    }
  }

  /**
   * Says `pool`'s host failed as the store's host: the pool ends (its idle connections with it)
   * and the next call finds a host again. Calls on it still under way finish or fail as they go.
   */
  lost(pool: pg.Pool): void {
    if (this.#pool !== pool) return;
    this.#pool = undefined;
    pool.end().catch(() => {});
  }

  async end(): Promise<void> {
    this.#ended = true;
    await this.#finding?.catch(() => {});
    await this.#pool?.end();
    this.#pool = undefined;
  }

  /** Finds the host, once for every call waiting on it. */
  #find(): Promise<pg.Pool> {
    this.#finding ??= this.#firstUsable().finally(() => {
      this.#finding = undefined;
    });
    return this.#finding;
  }

  async #firstUsable(): Promise<pg.Pool> {
    const { connectionStrings, readWrite } = this.#hosts;
    let found: pg.Pool | undefined;
    let lastError: unknown;
    if (connectionStrings.length === 1 && !readWrite)
      found = this.#makePool(connectionStrings[0] as string);
    for (const connectionString of found ? [] : connectionStrings) {
      const pool = this.#makePool(connectionString);
      try {
        if (!readWrite || (await writable(pool))) {
          found = pool;
          break;
        }
        lastError = new Error('the host is read-only (a standby)');
      } catch (error) {
        lastError = error;
      }
      await pool.end().catch(() => {});
    }
    if (found === undefined)
      throw new StoreUnavailableError(
        `PostgreSQL store unavailable: none of its ${connectionStrings.length} hosts ${readWrite ? 'accepts writes' : 'answers'}`,
        { cause: lastError },
      );
    if (this.#ended) {
      await found.end().catch(() => {});
      throw new StoreUnavailableError('the PostgreSQL store is closed');
    }
    this.#pool = found;
    return found;
  }
}

/** Whether `pool`'s host accepts writes, asked on one of its connections. */
async function writable(pool: pg.Pool): Promise<boolean> {
  const client = await pool.connect();
  try {
    const accepts = await acceptsWrites(client);
    client.release();
    return accepts;
  } catch (error) {
    client.release(true);
    throw error;
  }
}
