import {
  type CappedRecordOptions,
  type ConditionalConsumeResult,
  type ConsumeResult,
  checkCappedOptions,
  consumeIfStepwise,
  type FieldConditions,
  REVOKED_GRANT_SECONDS,
  type RecordCap,
  type RecordKey,
  type RecordOptions,
  type ReplaceOptions,
  type Revised,
  type Store,
  type StoreMetrics,
  StoreUnavailableError,
} from '@gatehouse-oidc/core';
import pg, { DatabaseError } from 'pg';
import { connectionSurvives, hostLost, isUnavailable, unavailable } from './errors.js';
import { HostPool } from './host-pool.js';
import { parseHosts } from './hosts.js';
import { decodeKey, encodeKey } from './key-encoding.js';
import { type PostgresStoreOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { type SchemaNames, schemaNames } from './schema.js';
import { type Rows, type Statement, type StatementName, statements } from './statements.js';

/** Rows one sweep statement deletes at most, so it holds its locks only briefly. */
const SWEEP_BATCH = 1_000;
/** Statements per sweep; the next sweep carries on where this one stopped. */
const SWEEP_BATCHES = 100;
/**
 * How much longer than the server's statement timeout the driver waits for an answer before it
 * gives up on the connection. The server normally cancels first, which keeps the connection; the
 * driver's own timeout is for a database or network that no longer answers at all.
 */
const NETWORK_ALLOWANCE_MS = 500;
/**
 * Trimming a cap reads its `max` newest entries of the position index. A small cap is trimmed on
 * every write; a larger one every `max / TRIM_SHARE` writes of this instance, so each write costs
 * about TRIM_SHARE index entries and the cap may be exceeded by that share per instance.
 */
const TRIM_SHARE = 64;
/** Records one trim drops at most: more is left to the next one. */
const TRIM_BATCH = 1_000;
/** Caps whose writes this instance counts between trims; beyond it the oldest is forgotten. */
const MAX_COUNTED_CAPS = 1_024;

/** What PostgreSQL answers for JSON text `jsonb` cannot hold: `\u0000`, a lone surrogate. */
const UNREADABLE_AS_JSONB = new Set(['22P05', '22P02']);

/**
 * A `Store` on PostgreSQL, shared by any number of Gatehouse instances: one table, every method a
 * single prepared statement and so a single round trip (and a single transaction: a failure
 * never leaves a call half-written), but a `consumeIf` of a value `jsonb` cannot read (three
 * steps: `consumeIfStepwise`). Time-to-live is an `expires_at` column compared with the
 * database clock; expired rows are invisible at once and deleted by a bounded background sweep.
 * The schema comes from `migrate()`, which must have run once. When the host fails or turns
 * read-only (a failover), the calls under way fail with `StoreUnavailableError` and the next
 * ones connect afresh, to the host that accepts writes when the connection string names several.
 */
export class PostgresStore implements Store {
  readonly #names: SchemaNames;
  readonly #statements: Record<StatementName, Statement>;
  readonly #hosts: HostPool;
  readonly #sweepTimer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | undefined;
  #closed = false;
  readonly #writesSinceTrim = new Map<string, number>();
  readonly #metrics = { evicted: 0, shed: 0, refused: 0 };

  constructor(options: PostgresStoreOptions) {
    const resolved = resolveOptions(options);
    this.#names = schemaNames(resolved.tablePrefix);
    this.#statements = statements(this.#names);
    this.#hosts = new HostPool(
      parseHosts(resolved.connectionString) as NonNullable<ReturnType<typeof parseHosts>>,
      (connectionString) => {
        const pool = new pg.Pool(poolConfig(resolved, connectionString));
        // A broken connection emits `error` besides failing its statement, idle or not; unheard,
        // the event would end the process. The statement's own failure is what gets reported,
        // and the pool discards the connection and opens a new one for the next statement.
        pool.on('error', () => {});
        pool.on('connect', (client) => client.on('error', () => {}));
        return pool;
      },
    );
    if (resolved.sweepIntervalMs > 0) {
      this.#sweepTimer = setInterval(() => {
        this.sweep().catch((error: unknown) => {
          // The database is down or slow: the next sweep tries again. Anything else is a bug.
          if (!(error instanceof StoreUnavailableError)) process.emitWarning(asError(error));
        });
      }, resolved.sweepIntervalMs);
      this.#sweepTimer.unref();
    }
  }

  async get<T>(namespace: string, id: string): Promise<T | undefined> {
    const { rows } = await this.#run('get', [encodeKey(namespace), encodeKey(id)]);
    return rows[0] ? (JSON.parse(rows[0].value) as T) : undefined;
  }

  async set<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<void> {
    const statement = options?.grantId === undefined ? 'set' : 'setInGrant';
    await this.#run(statement, writeParameters(namespace, id, value, options));
  }

  async add<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<boolean> {
    const statement = options?.grantId === undefined ? 'add' : 'addInGrant';
    const { rowCount } = await this.#run(statement, writeParameters(namespace, id, value, options));
    return rowCount === 1;
  }

  async consume<T, N = unknown>(
    namespace: string,
    id: string,
    note?: N,
  ): Promise<ConsumeResult<T, N> | undefined> {
    const { rows } = await this.#run('consume', [
      encodeKey(namespace),
      encodeKey(id),
      note === undefined ? null : serialise(note),
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const result: ConsumeResult<T, N> = {
      value: JSON.parse(row.value) as T,
      firstUse: row.first_use,
    };
    if (row.note !== null) result.note = JSON.parse(row.note) as N;
    return result;
  }

  async consumeIf<T>(
    namespace: string,
    id: string,
    fields: FieldConditions,
  ): Promise<ConditionalConsumeResult<T> | undefined> {
    let rows: Rows['consumeIf'][];
    try {
      ({ rows } = await this.#run('consumeIf', [
        encodeKey(namespace),
        encodeKey(id),
        JSON.stringify(fields),
      ]));
    } catch (error) {
      // The statement reads the value as jsonb, which refuses a \u0000 or a lone surrogate the
      // text column keeps (and so may the conditions): judged here instead.
      if (!(error instanceof DatabaseError) || !UNREADABLE_AS_JSONB.has(error.code ?? ''))
        throw error;
      return consumeIfStepwise<T>(this, namespace, id, fields);
    }
    const row = rows[0];
    if (!row) return undefined;
    return { value: JSON.parse(row.value) as T, firstUse: row.first_use, matched: row.matched };
  }

  async read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    const { rows } = await this.#run('read', [encodeKey(namespace), encodeKey(id)]);
    const row = rows[0];
    // bigint arrives as a string; revisions stay far below 2^53.
    return row ? { value: JSON.parse(row.value) as T, revision: Number(row.revision) } : undefined;
  }

  async replace<T>(
    namespace: string,
    id: string,
    revision: number,
    value: T,
    options: ReplaceOptions = {},
  ): Promise<boolean> {
    if (!Number.isSafeInteger(revision)) return false;
    const { rowCount } = await this.#run('replace', [
      encodeKey(namespace),
      encodeKey(id),
      revision,
      serialise(value),
      ttlParameter(options.ttlSeconds),
    ]);
    return rowCount === 1;
  }

  /**
   * One statement writes the record and its places in its caps; then each cap due for it is
   * trimmed (see TRIM_SHARE), in parallel.
   */
  async setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number> {
    checkCappedOptions(options);
    const keys = options.caps.map((cap) => encodeKey(cap.key));
    const parameters = writeParameters(namespace, id, value, { ttlSeconds: options.ttlSeconds });
    await this.#run('setCapped', [...parameters, keys]);
    const trimmed = await Promise.all(
      options.caps.map((cap, index) => this.#trimIfDue(cap, keys[index] as string)),
    );
    const dropped = trimmed.reduce((sum, count) => sum + count, 0);
    this.#metrics.evicted += dropped;
    return dropped;
  }

  async #trimIfDue(cap: RecordCap, key: string): Promise<number> {
    const every = Math.ceil(cap.max / TRIM_SHARE);
    if (every > 1) {
      const writes = (this.#writesSinceTrim.get(key) ?? 0) + 1;
      this.#writesSinceTrim.delete(key);
      if (writes < every) {
        this.#writesSinceTrim.set(key, writes);
        const oldest = this.#writesSinceTrim.keys().next();
        if (!oldest.done && this.#writesSinceTrim.size > MAX_COUNTED_CAPS) {
          this.#writesSinceTrim.delete(oldest.value);
        }
        return 0;
      }
    }
    try {
      const { rows } = await this.#run('trimCap', [key, cap.max, TRIM_BATCH]);
      return rows.filter((row) => row.live).length;
    } catch (error) {
      // Trims of one cap running at once may deadlock on the rows they share: one gives way,
      // and a later write trims what it left.
      if (error instanceof StoreUnavailableError && isDeadlock(error.cause)) return 0;
      throw error;
    }
  }

  metrics(): StoreMetrics {
    return { ...this.#metrics };
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    const { rows } = await this.#run('delete', [encodeKey(namespace), encodeKey(id)]);
    return rows[0]?.live === true;
  }

  async listGrant(grantId: string): Promise<RecordKey[]> {
    const { rows } = await this.#run('listGrant', [encodeKey(grantId)]);
    return rows.map((row) => ({ namespace: decodeKey(row.namespace), id: decodeKey(row.id) }));
  }

  async revokeGrant(grantId: string): Promise<RecordKey[]> {
    const { rows } = await this.#run('revokeGrant', [encodeKey(grantId), REVOKED_GRANT_SECONDS]);
    return rows.map((row) => ({ namespace: decodeKey(row.namespace), id: decodeKey(row.id) }));
  }

  /** Also fails while the table is missing, so a health check keeps traffic away until migrated. */
  async ping(): Promise<void> {
    await this.#run('ping', []);
  }

  /**
   * Deletes expired rows now, in batches of at most 1,000, up to 100,000 rows; resolves with
   * how many went. The background sweep calls it; one sweep runs at a time per store.
   */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepBatches().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    await this.#sweeping?.catch(() => {});
    await this.#hosts.end();
  }

  async #sweepBatches(): Promise<number> {
    let removed = 0;
    for (let batch = 0; batch < SWEEP_BATCHES && !this.#closed; batch++) {
      const { rowCount } = await this.#run('sweep', [SWEEP_BATCH]);
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < SWEEP_BATCH) break;
    }
    return removed;
  }

  /**
   * Runs one prepared statement. Failures of the database or the network, timeouts included,
   * become `StoreUnavailableError` (the provider answers 503); any other error is a bug in a
   * statement and is thrown as it is.
   */
  async #run<N extends StatementName>(
    name: N,
    values: unknown[],
  ): Promise<pg.QueryResult<Rows[N]>> {
    if (this.#closed) throw new StoreUnavailableError('the PostgreSQL store is closed');
    let connection: Awaited<ReturnType<HostPool['connect']>>;
    try {
      connection = await this.#hosts.connect();
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw unavailable(error, this.#names.table);
    }
    const { client, pool } = connection;
    try {
      const result = await client.query<Rows[N]>({ ...this.#statements[name], values });
      client.release();
      return result;
    } catch (error) {
      client.release(connectionSurvives(error) ? undefined : asError(error));
      if (hostLost(error)) this.#hosts.lost(pool);
      if (isUnavailable(error)) throw unavailable(error, this.#names.table);
      throw error;
    }
  }
}

function poolConfig(options: ResolvedOptions, connectionString: string): pg.PoolConfig {
  return {
    connectionString,
    max: options.poolSize,
    application_name: 'gatehouse',
    connectionTimeoutMillis: options.statementTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + NETWORK_ALLOWANCE_MS,
    keepAlive: true,
  };
}

function writeParameters(
  namespace: string,
  id: string,
  value: unknown,
  options: RecordOptions = {},
): unknown[] {
  const { ttlSeconds, grantId } = options;
  return [
    encodeKey(namespace),
    encodeKey(id),
    serialise(value),
    ttlParameter(ttlSeconds),
    grantId === undefined ? null : encodeKey(grantId),
  ];
}

function ttlParameter(ttlSeconds: number | undefined): number | null {
  if (ttlSeconds !== undefined && !(Number.isFinite(ttlSeconds) && ttlSeconds > 0))
    throw new RangeError(`ttlSeconds must be a positive number, got ${ttlSeconds}`);
  return ttlSeconds ?? null;
}

/** Stored as JSON text rather than jsonb: jsonb refuses "\u0000" in strings, text takes any JSON. */
function serialise(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('a Store value must be JSON-serialisable');
  return json;
}

const isDeadlock = (error: unknown) =>
  error instanceof DatabaseError && (error.code === '40P01' || error.code === '40001');

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
