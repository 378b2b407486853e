import { Cluster, type CommonRedisOptions, Redis } from 'ioredis';
import type { RedisTopology } from './topology.js';

/** The scripts as ioredis defines them on a client: its Lua and how many keys it declares. */
export type ScriptDefinitions = Record<string, { lua: string; numberOfKeys: number }>;

/** Reconnection backoff: 100 ms doubling up to 1 s, for ever, so the store recovers by itself. */
const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** attempt, 1000);

/**
 * CLUSTERDOWN and TRYAGAIN (a slot being migrated) say the command was not run: they are sent
 * again this long after, up to `MAX_REDIRECTIONS` times counting MOVED and ASK, then fail.
 */
const CLUSTER_RETRY_MS = 100;
const MAX_REDIRECTIONS = 16;

/**
 * The client of a topology. `inOrder` says whether commands sent one after the other run in that
 * order: on one connection they do; on a Cluster, commands for two slots go to two nodes, so a
 * step that must follow another has to wait for its reply.
 */
export function createClient(
  topology: RedisTopology,
  timeoutMs: number,
  scripts: ScriptDefinitions,
): { client: Redis | Cluster; inOrder: boolean } {
  const common: CommonRedisOptions = {
    commandTimeout: timeoutMs,
    // A connection that stops answering is dropped and made again, rather than timing out
    // every call until TCP keep-alive notices.
    socketTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
    // No resending: a command Redis may already have run (a consume) is never run a second time
    // behind its caller's back.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectionName: 'gatehouse',
  };
  const shared = {
    scripts,
    // Nothing waits unboundedly for a connection: the store waits for one itself, bounded.
    enableOfflineQueue: false,
    // Commands issued in one event-loop turn leave in one write: under load this saves most
    // of the per-command syscalls, on both sides (docs/decisions.md has the numbers).
    enableAutoPipelining: true,
  };
  if (topology.kind === 'standalone') {
    const client = new Redis(topology.url, {
      ...common,
      ...shared,
      retryStrategy: reconnectDelay,
      // After a failover the old primary turns replica and refuses writes: find the new one.
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    });
    return { client, inOrder: true };
  }
  const { nodes, username, password, tls } = topology;
  const credentials = {
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
  };
  if (topology.kind === 'sentinel') {
    const client = new Redis({
      ...common,
      ...shared,
      ...credentials,
      sentinels: nodes,
      name: topology.group,
      db: topology.db,
      role: 'master',
      ...(tls && { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true }),
      // Reconnects as soon as the sentinels announce a new primary, rather than at the first
      // command the old one refuses.
      failoverDetector: true,
      retryStrategy: reconnectDelay,
      sentinelRetryStrategy: reconnectDelay,
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    });
    return { client, inOrder: true };
  }
  const client = new Cluster(nodes, {
    ...shared,
    redisOptions: { ...common, ...credentials, ...(tls && { tls: {} }) },
    clusterRetryStrategy: reconnectDelay,
    // ioredis sends a command again when its node's connection closes before the reply: Redis
    // may have run it, so never (the call fails, and the slot map is fetched again below).
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: CLUSTER_RETRY_MS,
    retryDelayOnTryAgain: CLUSTER_RETRY_MS,
    maxRedirections: MAX_REDIRECTIONS,
    slotsRefreshTimeout: Math.max(timeoutMs, 1000),
  });
  // With no resending, nothing else makes the client look for the primary that replaced a node
  // whose connection went: asking the cluster again at once does.
  client.on('node error', () => {
    client.refreshSlotsCache();
  });
  return { client: resendingUnrun(client, timeoutMs, Object.keys(scripts)), inOrder: false };
}

/**
 * Errors saying a Cluster did not run a command: its node no longer serves the slot (MOVED), is
 * handing it over (ASK), is moving its keys (TRYAGAIN), the cluster is reconfiguring
 * (CLUSTERDOWN), or the command never left, its batch spanning nodes after the slot map changed.
 */
const NOT_RUN =
  /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) |^All keys in the pipeline should belong to the same slots allocation group/;

/**
 * The cluster client, whose commands are sent again, with the slot map fetched afresh, while
 * a node answers that it did not run them, for up to `timeoutMs`. ioredis follows MOVED and
 * ASK itself for a command sent alone, but in an auto-pipelined batch (which the store relies
 * on for its throughput) only when every command of the batch was refused alike: during a slot
 * migration or a failover, some are not, and those would fail without this.
 */
function resendingUnrun(cluster: Cluster, timeoutMs: number, scripts: string[]): Cluster {
  const commands = new Set([...cluster.getBuiltinCommands(), ...scripts]);
  const resending = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy(cluster, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !commands.has(property) || typeof value !== 'function')
        return value;
      let wrapped = resending.get(property);
      if (wrapped === undefined) {
        const command = value as (...args: unknown[]) => Promise<unknown>;
        wrapped = async (...args: unknown[]) => {
          const deadline = performance.now() + timeoutMs;
          for (let attempt = 0; ; attempt++) {
            try {
              return await command.apply(target, args);
            } catch (error) {
              if (!(error instanceof Error) || !NOT_RUN.test(error.message)) throw error;
              if (performance.now() > deadline) throw error;
              target.refreshSlotsCache();
              await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 100)));
            }
          }
        };
        resending.set(property, wrapped);
      }
      return wrapped;
    },
  });
}
