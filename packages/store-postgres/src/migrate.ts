import { StoreUnavailableError } from '@gatehouse-oidc/core';
import pg, { DatabaseError } from 'pg';
import { isUnavailable, unavailable } from './errors.js';
import { HostPool } from './host-pool.js';
import { type Hosts, parseHosts } from './hosts.js';
import {
  addedColumnStatements,
  COLUMNS_QUERY,
  columnsProblem,
  MISSING_QUERY,
  migrationStatements,
  type SchemaObject,
} from './migration.js';
import { type PostgresStoreOptions, resolveOptions } from './options.js';
import { quote, schemaNames } from './schema.js';

export interface MigrationResult {
  /** The records table. */
  table: string;
  /** True when this call created it; false when it existed already. */
  created: boolean;
}

export interface MigrateOptions {
  /**
   * How long creating a missing index may wait for the table's lock, which any transaction still
   * writing to the table, or a VACUUM, holds. Default 5 s.
   */
  lockTimeoutMs?: number;
}

export const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 5000;

/** SQLSTATE lock_not_available: `lock_timeout` expired. */
const LOCK_TIMEOUT = '55P03';

/**
 * Creates the store's sequence, tables, indexes and functions when they do not exist, and adds
 * the columns later versions added to a table made by an earlier one; changes nothing otherwise,
 * and then takes no lock on the table, so it never waits for the table's writers nor holds them
 * up. Safe to run on every start and from several instances at once: they queue on a
 * transaction-scoped advisory lock. Fails with a clear error when a table of that name exists
 * but is not a store table, or when a missing index or column cannot get the table's lock within
 * `lockTimeoutMs` (retry then). Takes the store's options; only the connection and the prefix
 * matter, and no statement timeout applies, since building an index on a large table takes a
 * while.
 */
export async function migrate(
  options: PostgresStoreOptions,
  { lockTimeoutMs = DEFAULT_MIGRATION_LOCK_TIMEOUT_MS }: MigrateOptions = {},
): Promise<MigrationResult> {
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 1)
    throw new RangeError('lockTimeoutMs must be a positive integer');
  const resolved = resolveOptions(options);
  const names = schemaNames(resolved.tablePrefix);
  // One connection, to the host the store would write to (see HostPool).
  const hosts = new HostPool(parseHosts(resolved.connectionString) as Hosts, (connectionString) => {
    const pool = new pg.Pool({
      connectionString,
      max: 1,
      application_name: 'gatehouse migrate',
      connectionTimeoutMillis: resolved.statementTimeoutMs,
    });
    // Errors of a broken connection also reject the statement under way; this keeps them quiet.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    return pool;
  });
  let client: pg.PoolClient;
  try {
    ({ client } = await hosts.connect());
  } catch (error) {
    await hosts.end();
    if (error instanceof StoreUnavailableError) throw error;
    throw unavailable(error, names.table);
  }
  try {
    await client.query('BEGIN');
    // Waiting here is waiting for another instance's migration, which may be building an index.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('gatehouse'), hashtext($1))", [
      names.table,
    ]);
    // SET takes no parameters; the value is an integer checked above.
    await client.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
    const { tables, dependents, functions } = migrationStatements(names);
    const missing = await missingObjects(client, [...tables, ...dependents], functions);
    for (const object of tables) if (missing.has(object.name)) await client.query(object.create);
    const columns = await client.query<{ name: string; type: string }>(COLUMNS_QUERY, [
      quote(names.table),
    ]);
    const problem = columnsProblem(names.table, columns.rows);
    if (problem) throw new Error(problem);
    for (const statement of addedColumnStatements(names, columns.rows))
      await client.query(statement);
    for (const object of [...dependents, ...functions])
      if (missing.has(object.name)) await client.query(object.create);
    await client.query('COMMIT');
    return { table: names.table, created: missing.has(quote(names.table)) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if (error instanceof DatabaseError && error.code === LOCK_TIMEOUT)
      throw new StoreUnavailableError(
        `PostgreSQL store table "${names.table}" is locked by another session (a long transaction or a VACUUM): its indexes or new columns could not be created within ${lockTimeoutMs} ms; retry the migration`,
        { cause: error },
      );
    if (isUnavailable(error)) throw unavailable(error, names.table);
    throw error;
  } finally {
    client.release(true);
    await hosts.end().catch(() => {});
  }
}

async function missingObjects(
  client: pg.ClientBase,
  relations: SchemaObject[],
  functions: SchemaObject[],
): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(MISSING_QUERY, [
    relations.map((object) => object.name),
    functions.map((object) => object.name),
  ]);
  return new Set(rows.map((row) => row.name));
}
