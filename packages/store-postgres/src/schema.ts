/** Names of the database objects one store uses, all derived from its table prefix. */
export interface SchemaNames {
  /** The records table. */
  table: string;
  /** The sequence every write draws its revision from. */
  revisions: string;
  grantIndex: string;
  expiryIndex: string;
  /** Which caps each record of `setCapped` counts in, with its place in write order. */
  caps: string;
  capsPosition: string;
  /** Whether a grant takes records; waits for a revocation of it under way. */
  grantOpen: string;
  /** Closes a grant and removes its records. */
  revokeGrant: string;
}

export const DEFAULT_TABLE_PREFIX = 'gatehouse_';

/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1), which could make two names collide. */
const MAX_IDENTIFIER_BYTES = 63;
/** Lower case only: unquoted SQL folds to lower case, so operators can name the table in psql as-is. */
const PREFIX_PATTERN = /^[a-z_][a-z0-9_]*$/;

export function schemaNames(prefix: string): SchemaNames {
  const table = `${prefix}records`;
  return {
    table,
    revisions: `${prefix}revisions`,
    grantIndex: `${table}_grant_id`,
    expiryIndex: `${table}_expires_at`,
    caps: `${prefix}caps`,
    capsPosition: `${prefix}caps_position`,
    grantOpen: `${prefix}grant_open`,
    revokeGrant: `${prefix}revoke_grant`,
  };
}

/** Why `prefix` cannot name the store's tables, or undefined when it can. */
export function prefixProblem(prefix: string): string | undefined {
  if (!PREFIX_PATTERN.test(prefix))
    return 'must be lower-case letters, digits and underscores, not starting with a digit';
  const longest = Object.values(schemaNames(prefix)).reduce((a, b) =>
    b.length > a.length ? b : a,
  );
  if (longest.length > MAX_IDENTIFIER_BYTES)
    return `is too long: "${longest}" exceeds PostgreSQL's ${MAX_IDENTIFIER_BYTES}-byte identifiers`;
  return undefined;
}

/** Names are validated already; quoted all the same, so no name can ever read as SQL. */
export const quote = (identifier: string) => `"${identifier}"`;
