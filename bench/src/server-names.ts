/** The benchmarked servers. Kept apart from their code so the load process never loads them. */
export const SERVER_NAMES = [
  'ours',
  'ours-postgres',
  'ours-redis',
  'ours-standalone',
  'ceiling',
  'hand-written',
  'oidc-provider',
  'better-auth',
  'better-auth-postgres',
] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

/**
 * What `pnpm bench` runs when BENCH_SERVERS is unset: all but better-auth, whose token requests
 * cost milliseconds each, so its pools of codes and refresh tokens (minted through its own
 * endpoints) would take most of an hour at the default pool rate. Run only when BENCH_SERVERS
 * names it, with a BENCH_POOL_RATE near what it reaches (docs/performance.md).
 */
export const DEFAULT_SERVERS: readonly ServerName[] = SERVER_NAMES.filter(
  (name) => !name.startsWith('better-auth'),
);

export const isServerName = (value: string): value is ServerName =>
  (SERVER_NAMES as readonly string[]).includes(value);

/** A service a store server needs, and where the bench looks for it. */
export interface BenchService {
  /** Shown in the skip line: `PostgreSQL`. */
  readonly name: string;
  /** The environment variable that overrides `defaultUrl`. */
  readonly envVar: string;
  readonly defaultUrl: string;
}

/** Ours on a shared store: the same server as `ours`, on the store of a service it must reach. */
export const STORE_SERVICES = {
  'ours-postgres': {
    name: 'PostgreSQL',
    envVar: 'BENCH_POSTGRES_URL',
    defaultUrl: 'postgres://postgres@127.0.0.1:5432/test',
  },
  'ours-redis': { name: 'Redis', envVar: 'BENCH_REDIS_URL', defaultUrl: 'redis://127.0.0.1:6379' },
} as const satisfies Partial<Record<ServerName, BenchService>>;

export type StoreServerName = keyof typeof STORE_SERVICES;
