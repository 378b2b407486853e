import pg from 'pg';
import { isUnavailable, unavailable } from './errors.js';
import { COLUMNS_QUERY, columnsProblem, migrationStatements } from './migration.js';
import { type PostgresStoreOptions, resolveOptions } from './options.js';
import { quote, schemaNames } from './schema.js';

export interface MigrationResult {
  /** The records table. */
  table: string;
  /** True when this call created it; false when it existed already. */
  created: boolean;
}

/**
 * Creates the store's sequence, table and indexes when they do not exist; changes nothing
 * otherwise. Safe to run on every start and from several instances at once: they queue on a
 * transaction-scoped advisory lock. Fails with a clear error when a table of that name exists
 * but is not a store table. Takes the store's options; only the connection and the prefix matter,
 * and no statement timeout applies, since building an index on a large table takes a while.
 */
export async function migrate(options: PostgresStoreOptions): Promise<MigrationResult> {
  const resolved = resolveOptions(options);
  const names = schemaNames(resolved.tablePrefix);
  const client = new pg.Client({
    connectionString: resolved.connectionString,
    application_name: 'gatehouse migrate',
    connectionTimeoutMillis: resolved.statementTimeoutMs,
  });
  // Errors of a broken connection also reject the statement under way; this keeps the event quiet.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw unavailable(error, names.table);
  }
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('gatehouse'), hashtext($1))", [
      names.table,
    ]);
    const existing = await client.query<{ found: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS found',
      [quote(names.table)],
    );
    const { tables, indexes } = migrationStatements(names);
    for (const text of tables) await client.query(text);
    const columns = await client.query<{ name: string; type: string }>(COLUMNS_QUERY, [
      quote(names.table),
    ]);
    const problem = columnsProblem(names.table, columns.rows);
    if (problem) throw new Error(problem);
    for (const text of indexes) await client.query(text);
    await client.query('COMMIT');
    return { table: names.table, created: existing.rows[0]?.found !== true };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if (isUnavailable(error)) throw unavailable(error, names.table);
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}
