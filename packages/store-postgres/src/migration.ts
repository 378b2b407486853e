import { grantFunctions } from './grant-functions.js';
import { quote, type SchemaNames } from './schema.js';

/**
 * One object of the schema: its name as `to_regclass` (or, for a function, `to_regprocedure`)
 * takes it, and the statement creating it.
 */
export interface SchemaObject {
  name: string;
  create: string;
}

/**
 * The schema: first the sequence and the table, then (once the table is known to have our
 * columns, the ones later versions added included) what depends on it: its indexes, the caps
 * table and the functions. `migrate` runs only the statements whose object is missing, since even a
 * `CREATE INDEX IF NOT EXISTS` that finds its index takes the table's ShareLock first, and holds
 * it to the end of the transaction. One transaction runs them under an advisory lock: without
 * it, two instances migrating at once can both find an object missing and one then fails on a
 * duplicate catalog entry. `IF NOT EXISTS` stays for whatever creates them outside that lock.
 */
export function migrationStatements(names: SchemaNames): {
  tables: SchemaObject[];
  dependents: SchemaObject[];
  functions: SchemaObject[];
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
       note text,
       PRIMARY KEY (namespace, id)
     )`,
    },
  ];
  const dependents = [
    {
      // Deleting a record, by any statement or the sweep, takes it out of its caps.
      name: quote(names.caps),
      create: `CREATE TABLE IF NOT EXISTS ${quote(names.caps)} (
       namespace text NOT NULL,
       id text NOT NULL,
       cap_key text NOT NULL,
       position bigint NOT NULL,
       PRIMARY KEY (namespace, id, cap_key),
       FOREIGN KEY (namespace, id) REFERENCES ${table} (namespace, id) ON DELETE CASCADE
     )`,
    },
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
    {
      name: quote(names.capsPosition),
      create: `CREATE INDEX IF NOT EXISTS ${quote(names.capsPosition)} ON ${quote(names.caps)} (cap_key, position)`,
    },
  ];
  return { tables, dependents, functions: grantFunctions(names) };
}

/**
 * Which of the relations ($1) `to_regclass` and of the functions ($2) `to_regprocedure` does not
 * find: reading the catalog takes no table lock.
 */
export const MISSING_QUERY = `SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL
  UNION ALL SELECT name FROM unnest($2::text[]) AS name WHERE to_regprocedure(name) IS NULL`;

/** Columns later versions added, with their types: `migrate` adds them to an older table. */
export const ADDED_COLUMNS: Readonly<Record<string, string>> = {
  /** 0.5: the note a consume leaves (Store.consume). */
  note: 'text',
};

/**
 * The statements adding whichever of ADDED_COLUMNS a store table lacks (nullable, so PostgreSQL
 * does not rewrite the table).
 */
export function addedColumnStatements(
  names: SchemaNames,
  found: ReadonlyArray<{ name: string }>,
): string[] {
  const present = new Set(found.map((column) => column.name));
  return Object.entries(ADDED_COLUMNS)
    .filter(([name]) => !present.has(name))
    .map(
      ([name, type]) =>
        `ALTER TABLE ${quote(names.table)} ADD COLUMN IF NOT EXISTS ${name} ${type}`,
    );
}

/**
 * The columns of a store table since 0.4, with their types as `format_type` spells them: a table
 * lacking one is not a store table (the statements also rely on ADDED_COLUMNS, which `migrate`
 * adds).
 */
export const BASE_COLUMNS: Readonly<Record<string, string>> = {
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
  const wrong = Object.entries(BASE_COLUMNS)
    .filter(([name, type]) => types.get(name) !== type)
    .map(([name, type]) => `${name} ${type}`);
  if (wrong.length === 0) return undefined;
  return `table "${table}" exists but is not a Gatehouse store table: it lacks ${wrong.join(', ')}; choose another tablePrefix`;
}
