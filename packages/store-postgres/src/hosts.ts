import type pg from 'pg';

/**
 * The hosts a connection string names, as libpq reads a multi-host one: `pg` takes one host, so
 * `postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write` becomes one connection
 * string per host, tried in order, and whether the host must accept writes.
 */
export interface Hosts {
  /** One per host, in the order given, without `target_session_attrs`. */
  connectionStrings: string[];
  /** `target_session_attrs=read-write`: only a host whose sessions may write will do. */
  readWrite: boolean;
}

const CONNECTION_STRING = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)([^?#]*)(?:\?([^#]*))?$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^[\]:,]+)(:\d{1,5})?$/;
const SESSION_ATTRS = new Set(['any', 'read-write']);

/** The hosts of a `postgres://` or `postgresql://` connection string, or undefined if invalid. */
export function parseHosts(connectionString: string): Hosts | undefined {
  const match = CONNECTION_STRING.exec(connectionString);
  if (match === null) return undefined;
  const [, scheme, userinfo = '', hostList = '', path = '', query = ''] = match;
  const parameters = new URLSearchParams(query);
  const attrs = parameters.get('target_session_attrs') ?? 'any';
  if (!SESSION_ATTRS.has(attrs)) return undefined;
  parameters.delete('target_session_attrs');
  const rest = `${path}${parameters.size > 0 ? `?${parameters}` : ''}`;
  const hosts = hostList.split(',');
  // One host (or none: the local socket) is pg's own business; several must each be host[:port].
  if (hosts.length > 1 && !hosts.every((host) => HOST_PORT.test(host))) return undefined;
  const connectionStrings = hosts.map((host) => `${scheme}${userinfo}${host}${rest}`);
  if (!connectionStrings.every((candidate) => URL.canParse(candidate))) return undefined;
  return { connectionStrings, readWrite: attrs === 'read-write' };
}

/** Whether sessions on `client` may write, as libpq's `target_session_attrs=read-write` asks. */
export async function acceptsWrites(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ transaction_read_only: string }>(
    'SHOW transaction_read_only',
  );
  return rows[0]?.transaction_read_only === 'off';
}
