/**
 * Where the store finds Redis, read from its URL:
 *
 * - `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS): one server, or a managed
 *   service's primary endpoint;
 * - `redis+cluster://[[user]:password@]host:port,host:port…` (`rediss+cluster://`): a Redis
 *   Cluster, reached through any of the seed nodes listed;
 * - `redis+sentinel://[[user]:password@]host:port,host:port…/group[/db]`
 *   (`rediss+sentinel://`): the primary of the Sentinel group `group`, found through the
 *   sentinels listed. The credentials are the primary's; the sentinels are asked without any.
 */
export type RedisTopology =
  | { kind: 'standalone'; url: string }
  | (Endpoints & { kind: 'cluster' })
  | (Endpoints & { kind: 'sentinel'; group: string; db: number });

interface Endpoints {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  tls: boolean;
}

const DEFAULT_PORT = { cluster: 6379, sentinel: 26379 } as const;

/** `redis(s)+kind://userinfo@hosts/path`, hosts being one or more `host[:port]`, comma-separated. */
const MULTI_HOST = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/?#]*)@)?([^/?#]+)(\/[^?#]*)?$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^[\]:,]+)(?::(\d{1,5}))?$/;

/** The topology the URL names, or undefined when it is not a Redis URL the store takes. */
export function parseRedisUrl(url: string): RedisTopology | undefined {
  const multi = MULTI_HOST.exec(url);
  if (multi === null) return isStandaloneUrl(url) ? { kind: 'standalone', url } : undefined;
  const [, scheme, kind, userinfo, hosts, path = ''] = multi as unknown as [
    string,
    'redis' | 'rediss',
    'cluster' | 'sentinel',
    string | undefined,
    string,
    string | undefined,
  ];
  const nodes = parseNodes(hosts, DEFAULT_PORT[kind]);
  const credentials = parseUserinfo(userinfo);
  if (nodes === undefined || credentials === undefined) return undefined;
  const endpoints = { nodes, ...credentials, tls: scheme === 'rediss' };
  const segments = path.split('/').filter((segment) => segment !== '');
  if (kind === 'cluster') return segments.length === 0 ? { kind, ...endpoints } : undefined;
  const [group, db = '0'] = segments;
  if (group === undefined || segments.length > 2 || !/^\d{1,5}$/.test(db)) return undefined;
  const decodedGroup = safeDecode(group);
  return decodedGroup === undefined
    ? undefined
    : { kind, ...endpoints, group: decodedGroup, db: Number(db) };
}

function isStandaloneUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return (protocol === 'redis:' || protocol === 'rediss:') && hostname !== '';
}

function parseNodes(hosts: string, defaultPort: number): Endpoints['nodes'] | undefined {
  const nodes: Endpoints['nodes'] = [];
  for (const entry of hosts.split(',')) {
    const match = HOST_PORT.exec(entry);
    if (match === null) return undefined;
    const port = match[2] === undefined ? defaultPort : Number(match[2]);
    if (port < 1 || port > 65_535) return undefined;
    nodes.push({ host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port });
  }
  return nodes;
}

function parseUserinfo(
  userinfo: string | undefined,
): { username?: string; password?: string } | undefined {
  if (userinfo === undefined) return {};
  const at = userinfo.indexOf(':');
  const username = safeDecode(at === -1 ? userinfo : userinfo.slice(0, at));
  const password = at === -1 ? '' : safeDecode(userinfo.slice(at + 1));
  if (username === undefined || password === undefined) return undefined;
  return {
    ...(username !== '' && { username }),
    ...(password !== '' && { password }),
  };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
