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
  setInGrant: never;
  add: { added: true };
  addInGrant: { added: true };
  consume: { value: string; first_use: boolean; note: string | null };
  consumeIf: { value: string; first_use: boolean; matched: boolean };
  read: { value: string; revision: string };
  replace: never;
  delete: { live: boolean };
  listGrant: { namespace: string; id: string };
  revokeGrant: { namespace: string; id: string };
  setCapped: never;
  trimCap: { live: boolean };
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
  const caps = quote(names.caps);
  const grantOpen = quote(names.grantOpen);
  const live = '(expires_at IS NULL OR expires_at > now())';
  const key = 'namespace = $1 AND id = $2';
  // The value's fields (JSON, stored as text) against the allowed values of each field in $3.
  const meets = `NOT EXISTS (SELECT FROM jsonb_each($3::jsonb) AS c(field, allowed)
     WHERE NOT c.allowed @> jsonb_build_array(COALESCE(value::jsonb -> c.field, 'null'::jsonb)))`;
  // A null TTL gives a null expiry: never expires.
  const columns = 'namespace, id, value, expires_at, grant_id, consumed, revision';
  const values = `$1, $2, $3, now() + $4::float8 * interval '1 second', $5, false, nextval('${revisions}')`;
  const overwrite =
    'value = excluded.value, expires_at = excluded.expires_at, grant_id = excluded.grant_id, ' +
    'consumed = false, note = NULL, revision = excluded.revision';
  // Named after the table: prepared statements are per connection, and names must not clash.
  const statement = (name: StatementName, text: string): Statement => ({
    name: `${names.table}_${name}`,
    text,
  });

  const set = (name: StatementName, rows: string) =>
    statement(
      name,
      `INSERT INTO ${table} (${columns}) ${rows}
       ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}`,
    );
  // The conflicting row is locked before the WHERE is evaluated on its newest version, so of
  // concurrent callers exactly one inserts or takes over the expired row; the others get no row.
  const add = (name: StatementName, rows: string) =>
    statement(
      name,
      `INSERT INTO ${table} AS r (${columns}) ${rows}
       ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}
       WHERE r.expires_at IS NOT NULL AND r.expires_at <= now()
       RETURNING true AS added`,
    );

  return {
    get: statement('get', `SELECT value FROM ${table} WHERE ${key} AND ${live}`),
    set: set('set', `VALUES (${values})`),
    // Under a closed grant nothing is written, and what the id held is removed.
    setInGrant: statement(
      'setInGrant',
      `WITH open AS (SELECT ${grantOpen}($5) AS ok),
       cleared AS (DELETE FROM ${table} WHERE ${key} AND NOT (SELECT ok FROM open))
       INSERT INTO ${table} (${columns}) SELECT ${values} FROM open WHERE ok
       ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}`,
    ),
    add: add('add', `VALUES (${values})`),
    addInGrant: add('addInGrant', `SELECT ${values} WHERE ${grantOpen}($5)`),
    // The UPDATE only matches an unused record, so exactly one caller changes it, leaves its note
    // and learns it was the first use. A caller that lost the race waited for the winner's row
    // lock and found the row used: the second branch reads it again, locking it so as to read
    // the version the winner committed (with its note) rather than the statement's snapshot.
    consume: statement(
      'consume',
      `WITH first AS (
         UPDATE ${table} SET consumed = true, note = $3
         WHERE ${key} AND NOT consumed AND ${live}
         RETURNING value, note
       ),
       again AS (
         SELECT value, note FROM ${table}
         WHERE ${key} AND ${live} AND NOT EXISTS (SELECT FROM first)
         FOR SHARE
       )
       SELECT value, note, true AS first_use FROM first
       UNION ALL
       SELECT value, note, false FROM again`,
    ),
    // As consume, the UPDATE only when the value meets $3: each field's allowed values as a JSON
    // array, a field absent (or null) standing as JSON null.
    consumeIf: statement(
      'consumeIf',
      `WITH first AS (
         UPDATE ${table} SET consumed = true
         WHERE ${key} AND NOT consumed AND ${live} AND ${meets}
         RETURNING value
       ),
       again AS (
         SELECT value, ${meets} AS matched FROM ${table}
         WHERE ${key} AND ${live} AND NOT EXISTS (SELECT FROM first)
         FOR SHARE
       )
       SELECT value, true AS first_use, true AS matched FROM first
       UNION ALL
       SELECT value, false, matched FROM again`,
    ),
    read: statement('read', `SELECT value, revision FROM ${table} WHERE ${key} AND ${live}`),
    replace: statement(
      'replace',
      `UPDATE ${table} SET value = $4, revision = nextval('${revisions}'),
         expires_at = CASE WHEN $5::float8 IS NULL THEN expires_at
                           ELSE now() + $5::float8 * interval '1 second' END
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
      `SELECT namespace, id FROM ${quote(names.revokeGrant)}($1, $2)`,
    ),
    // $6: the cap keys ($5, the grant, is null). The record's revision is its place in write order; the caps it no longer
    // counts in are left.
    setCapped: statement(
      'setCapped',
      `WITH written AS (
         INSERT INTO ${table} (${columns}) VALUES (${values})
         ON CONFLICT (namespace, id) DO UPDATE SET ${overwrite}
         RETURNING namespace, id, revision
       ), left_caps AS (
         DELETE FROM ${caps} c USING written w
         WHERE c.namespace = w.namespace AND c.id = w.id AND c.cap_key <> ALL ($6::text[])
       )
       INSERT INTO ${caps} (namespace, id, cap_key, position)
       SELECT w.namespace, w.id, cap_key, w.revision FROM written w, unnest($6::text[]) AS cap_key
       ON CONFLICT (namespace, id, cap_key) DO UPDATE SET position = excluded.position`,
    ),
    // Drops the records of cap $1 beyond the newest $2 (at most $3 per call), oldest first.
    trimCap: statement(
      'trimCap',
      `WITH doomed AS (
         SELECT namespace, id FROM ${caps} WHERE cap_key = $1
         ORDER BY position DESC OFFSET $2 LIMIT $3
       )
       DELETE FROM ${table} r USING doomed
       WHERE r.namespace = doomed.namespace AND r.id = doomed.id
       RETURNING ${live} AS live`,
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
