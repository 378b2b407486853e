import { quote, type SchemaNames } from './schema.js';

/**
 * The namespace of the rows that mark a grant closed after its revocation. Every namespace a
 * caller gives is stored through `encodeKey`, which never yields a string that starts with
 * U+0001 and goes on with anything but a JSON string, so no record can land here.
 */
export const CLOSED_GRANT_NAMESPACE = '\u0001closed_grant';

/**
 * The two functions behind revoked grants (see the Store contract). A write under a grant calls
 * `grant_open`, which takes a shared advisory lock on the grant for the rest of the writer's
 * transaction and then looks for the grant's closing row; `revoke_grant` takes the same lock
 * exclusively, so it waits for the writers under way, then writes the closing row and deletes the
 * grant's records. Functions, not plain statements, because each query of a VOLATILE function
 * takes a fresh snapshot: the lookup sees a revocation committed while the writer waited for the
 * lock, and the deletion sees every record committed by the writers it waited for. In one
 * statement both would read the snapshot taken before the wait, and a racing write could
 * outlive its grant's revocation.
 */
export function grantFunctions(names: SchemaNames): Array<{ name: string; create: string }> {
  const table = quote(names.table);
  const closed = `E'\\001${CLOSED_GRANT_NAMESPACE.slice(1)}'`;
  // Lock keys: the table's hash and the grant's. A collision only makes two grants wait for
  // each other's revocation.
  const lock = `hashtext(${sqlString(names.table)}), hashtext(p_grant)`;
  return [
    {
      name: `${quote(names.grantOpen)}(text)`,
      create: `CREATE OR REPLACE FUNCTION ${quote(names.grantOpen)}(p_grant text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(${lock});
  RETURN NOT EXISTS (
    SELECT FROM ${table} WHERE namespace = ${closed} AND id = p_grant AND expires_at > now()
  );
END
$fn$`,
    },
    {
      name: `${quote(names.revokeGrant)}(text,double precision)`,
      create: `CREATE OR REPLACE FUNCTION ${quote(names.revokeGrant)}(p_grant text, p_closed_seconds float8)
  RETURNS TABLE (namespace text, id text)
  LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(${lock});
  INSERT INTO ${table} (namespace, id, value, expires_at, grant_id, consumed, revision)
  VALUES (${closed}, p_grant, 'true', now() + p_closed_seconds * interval '1 second', NULL, false,
          nextval(${sqlString(quote(names.revisions))}))
  ON CONFLICT (namespace, id) DO UPDATE SET expires_at = excluded.expires_at;
  RETURN QUERY
    WITH gone AS (
      DELETE FROM ${table} WHERE grant_id = p_grant
      RETURNING namespace, id, (expires_at IS NULL OR expires_at > now()) AS live
    )
    SELECT gone.namespace, gone.id FROM gone WHERE gone.live;
END
$fn$`,
    },
  ];
}

/** A validated name as an SQL string literal (names hold no quote; checked by prefixProblem). */
const sqlString = (value: string) => `'${value}'`;
