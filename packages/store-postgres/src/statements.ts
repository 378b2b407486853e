import { quote, type SchemaNames } from './schema.js';

/** One SQL statement of the store, prepared once per connection under `name`. */
export interface Statement {
  name: string;
  text: string;
}

/** The rows each statement answers with, as `pg` parses them (bigint comes as a string). */
export type Rows = {
  get: { value: string };
  set: never;
  add: { added: true };
  consume: { value: string; first_use: boolean };
  read: { value: string; revision: string };
  replace: never;
  delete: { live: boolean };
  listGrant: { namespace: string; id: string };
  revokeGrant: { revoked: number };
  sweep: never;
  ping: never;
};

export type StatementName = keyof Rows;

/**
 * Every statement the store runs, each a single round trip. Expiry is compared with the
 * database's `now()`, never the caller's clock, so instances with skewed clocks agree on what
 * is live. `$1` is the namespace and `$2` the id wherever a record is addressed, so each of those
 * statements is a primary-key lookup.
 */
export function statements(names: SchemaNames): Record<StatementName, Statement> {
  const table = quote(names.table);
  const revisions = quote(names.revisions);
  const live = '(expires_at IS NULL OR expires_at > now())';
  const key = 'namespace = $1 AND id = $2';
  // A null TTL gives a null expiry: never expires.
  const columns = 'namespace, id, value, expires_at, grant_id, consumed, revision';
  const values = `$1, $2, $3, now() + $4::float8 * interval '1 second', $5, false, nextval('${revisions}')`;
  const overwrite =
    'value = excluded.value, expires_at = excluded.expires_at, grant_id = excluded.grant_id, ' +
    'consumed = false, revision = excluded.revision';
  // Named after the table: prepared statements are per connection, and names must not clash.
  const statement = (name: StatementName, text: string): Statement => ({
    name: `${names.table}_${name}`,
    text,
  });

  return {
    get: statement('get', `SELECT value FROM ${table} WHERE ${key} AND ${live}`),
    set: statement(
      'set',
      `INSERT INTO ${table} (${columns}) VALUES (${values})
       ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}`,
    ),
    // The conflicting row is locked before the WHERE is evaluated on its newest version, so of
    // concurrent callers exactly one inserts or takes over the expired row; the others get no row.
    add: statement(
      'add',
      `INSERT INTO ${table} AS r (${columns}) VALUES (${values})
       ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}
       WHERE r.expires_at IS NOT NULL AND r.expires_at <= now()
       RETURNING true AS added`,
    ),
    // The UPDATE only matches an unused record, so exactly one caller changes it and learns it was
    // the first use. A caller that lost the race waited for the winner's row lock, found the row
    // used, and still sees it in the statement's snapshot through the second branch: a replay.
    consume: statement(
      'consume',
      `WITH first AS (
         UPDATE ${table} SET consumed = true
         WHERE ${key} AND NOT consumed AND ${live}
         RETURNING value
       )
       SELECT value, true AS first_use FROM first
       UNION ALL
       SELECT value, false FROM ${table}
       WHERE ${key} AND ${live} AND NOT EXISTS (SELECT FROM first)`,
    ),
    read: statement('read', `SELECT value, revision FROM ${table} WHERE ${key} AND ${live}`),
    replace: statement(
      'replace',
      `UPDATE ${table} SET value = $4, revision = nextval('${revisions}')
       WHERE ${key} AND revision = $3 AND ${live}`,
    ),
    // Expired rows go too, but only a live one counts as deleted.
    delete: statement('delete', `DELETE FROM ${table} WHERE ${key} RETURNING ${live} AS live`),
    listGrant: statement(
      'listGrant',
      `SELECT namespace, id FROM ${table} WHERE grant_id = $1 AND ${live}`,
    ),
    revokeGrant: statement(
      'revokeGrant',
      `WITH gone AS (DELETE FROM ${table} WHERE grant_id = $1 RETURNING ${live} AS live)
       SELECT count(*) FILTER (WHERE live)::int AS revoked FROM gone`,
    ),
    // SKIP LOCKED: instances sweeping at the same moment take different rows instead of queueing.
    sweep: statement(
      'sweep',
      `WITH doomed AS (
         SELECT namespace, id FROM ${table}
         WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       DELETE FROM ${table} r USING doomed
       WHERE r.namespace = doomed.namespace AND r.id = doomed.id`,
    ),
    // Reads the table rather than SELECT 1, so a health check fails until the migration ran.
    ping: statement('ping', `SELECT FROM ${table} LIMIT 0`),
  };
}
