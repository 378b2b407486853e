import { quote, type SchemaNames } from './schema.js';

/** One object of the schema: its name as `to_regclass` takes it, and the statement creating it. */
export interface SchemaObject {
  name: string;
  create: string;
}

/**
 * The schema: first the sequence and the table, then (once the table is known to have our
 * columns) the indexes. `migrate` runs only the statements whose object is missing, since even a
 * `CREATE INDEX IF NOT EXISTS` that finds its index takes the table's ShareLock first, and holds
 * it to the end of the transaction. One transaction runs them under an advisory lock: without
 * it, two instances migrating at once can both find an object missing and one then fails on a
 * duplicate catalog entry. `IF NOT EXISTS` stays for whatever creates them outside that lock.
 */
export function migrationStatements(names: SchemaNames): {
  tables: SchemaObject[];
  indexes: SchemaObject[];
} {
  const table = quote(names.table);
  const tables = [
    {
      name: quote(names.revisions),
      create: `CREATE SEQUENCE IF NOT EXISTS ${quote(names.revisions)}`,
    },
    {
      name: table,
      create: `CREATE TABLE IF NOT EXISTS ${table} (
       namespace text NOT NULL,
       id text NOT NULL,
       value text NOT NULL,
       expires_at timestamptz,
       grant_id text,
       consumed boolean NOT NULL DEFAULT false,
       revision bigint NOT NULL,
       PRIMARY KEY (namespace, id)
     )`,
    },
  ];
  const indexes = [
    {
      name: quote(names.grantIndex),
      create: `CREATE INDEX IF NOT EXISTS ${quote(names.grantIndex)} ON ${table} (grant_id)
     WHERE grant_id IS NOT NULL`,
    },
    {
      name: quote(names.expiryIndex),
      create: `CREATE INDEX IF NOT EXISTS ${quote(names.expiryIndex)} ON ${table} (expires_at)
     WHERE expires_at IS NOT NULL`,
    },
  ];
  return { tables, indexes };
}

/** Which of the names `to_regclass` does not find: reading the catalog takes no table lock. */
export const MISSING_QUERY =
  'SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL';

/** The columns the statements rely on, with their types as `format_type` spells them. */
export const EXPECTED_COLUMNS: Readonly<Record<string, string>> = {
  namespace: 'text',
  id: 'text',
  value: 'text',
  expires_at: 'timestamp with time zone',
  grant_id: 'text',
  consumed: 'boolean',
  revision: 'bigint',
};

export const COLUMNS_QUERY = `SELECT attname AS name, format_type(atttypid, atttypmod) AS type
  FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`;

/** What is wrong with an existing table of that name, or undefined when it has our columns. */
export function columnsProblem(
  table: string,
  found: ReadonlyArray<{ name: string; type: string }>,
): string | undefined {
  const types = new Map(found.map((column) => [column.name, column.type]));
  const wrong = Object.entries(EXPECTED_COLUMNS)
    .filter(([name, type]) => types.get(name) !== type)
    .map(([name, type]) => `${name} ${type}`);
  if (wrong.length === 0) return undefined;
  return `table "${table}" exists but is not a Gatehouse store table: it lacks ${wrong.join(', ')}; choose another tablePrefix`;
}
