import { createRequire } from 'node:module';
import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { type Cluster, type Redis, ReplyError } from 'ioredis';
import { isUnavailable, unavailable } from './errors.js';

/** The Cluster hash slot of a key, hash tags honoured: what ioredis routes commands by. */
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;

/**
 * Holds a write's caller until replicas have it. Redis replicates asynchronously: a primary that
 * dies right after answering a write can take the write with it, and the replica promoted in its
 * place would give a consumed code out again or accept a rotated refresh token. `WAIT n` answers
 * once n replicas acknowledge every write its connection sent before it: a write the store
 * reports done is then on the replicas that could take over, and one that cannot get there fails
 * as unavailable (the request answers 503; the write may stand on the primary, which only ever
 * refuses more).
 *
 * A primary is asked to wait for as many of its replicas as are connected, up to the number
 * configured: a replica that is gone (killed, or cut off long enough for its primary to drop it)
 * is not waited for, so the replica promoted in a failover serves writes before a new replica
 * joins it. One that is connected but silent (frozen, partitioned within the replication
 * timeout) is waited for, and the writes fail meanwhile. Each primary's replicas are counted
 * (`ROLE`) at most once a second, and again when a `WAIT` falls short; a primary counted with
 * none, before every turn's writes are reported done: a replica that joins it (the old primary,
 * back after a failover) could take over from it within that second, and no replica would have
 * had the second's writes. One that joins a primary with replicas is left to the election, which
 * prefers the replica with the most data.
 *
 * The writes that finish in one run of microtasks share one `WAIT` per primary: under load a
 * batch of requests costs one replication round trip, not one each.
 */
export class ReplicaAcknowledgement {
  readonly #client: Redis | Cluster;
  readonly #replicas: number;
  /** `WAIT`'s own bound, under the command timeout so Redis answers before the client gives up. */
  readonly #waitMs: number;
  readonly #timeoutMs: number;
  /** The `WAIT` each primary will be sent at the end of this run of microtasks. */
  readonly #pending = new Map<string, Promise<void>>();
  /** Each primary's connected replicas, and when they were counted. */
  readonly #counted = new Map<string, { replicas: number; at: number }>();

  constructor(client: Redis | Cluster, replicas: number, timeoutMs: number) {
    this.#client = client;
    this.#replicas = replicas;
    this.#timeoutMs = timeoutMs;
    this.#waitMs = Math.max(1, Math.floor(timeoutMs / 2));
  }

  /** Resolves once the writes to `keys` that have answered are on enough replicas. */
  async of(keys: Iterable<string>): Promise<void> {
    if (this.#replicas === 0) return;
    const primaries = isCluster(this.#client) ? primariesOf(this.#client, keys) : [PRIMARY];
    await Promise.all(primaries.map((primary) => this.#waitAt(primary)));
  }

  #waitAt(primary: string): Promise<void> {
    let waiting = this.#pending.get(primary);
    if (waiting === undefined) {
      waiting = Promise.resolve().then(() => {
        this.#pending.delete(primary);
        return this.#wait(primary);
      });
      this.#pending.set(primary, waiting);
    }
    return waiting;
  }

  async #wait(primary: string): Promise<void> {
    const connection =
      primary === PRIMARY ? (this.#client as Redis) : nodeAt(this.#client as Cluster, primary);
    let awaited: number;
    try {
      const counted = this.#counted.get(primary);
      const replicas =
        counted !== undefined && counted.replicas > 0 && performance.now() - counted.at < RECOUNT_MS
          ? counted.replicas
          : await this.#count(primary, connection);
      awaited = Math.min(this.#replicas, replicas);
      if (awaited === 0) return;
      const acknowledged = await connection.wait(awaited, this.#waitMs);
      if (acknowledged >= awaited) return;
      // Short: a replica may have gone since it was counted.
      if (acknowledged >= Math.min(this.#replicas, await this.#count(primary, connection))) return;
    } catch (error) {
      // WAIT and ROLE are never wrong: a refusal says the node stopped being a primary (a replica
      // refuses WAIT with ERR; a demoted primary ends one it holds with UNBLOCKED).
      if (isUnavailable(error) || error instanceof ReplyError)
        throw unavailable(error, this.#timeoutMs);
      throw error;
    }
    throw new StoreUnavailableError(
      `Redis did not replicate a write to ${awaited} replica(s) within ${this.#waitMs} ms`,
    );
  }

  /** The replicas connected to `primary` now (`ROLE`), remembered for the next second. */
  async #count(primary: string, connection: Redis): Promise<number> {
    const role = (await connection.role()) as [string, number, unknown[]?];
    if (role[0] !== 'master') throw new StoreUnavailableError('the Redis node is not a primary');
    const replicas = role[2]?.length ?? 0;
    this.#counted.set(primary, { replicas, at: performance.now() });
    return replicas;
  }
}

/** How long a count of a primary's replicas is trusted. */
const RECOUNT_MS = 1000;

/** The one connection of a standalone or Sentinel client, as a key of `#pending`. */
const PRIMARY = '';

const isCluster = (client: Redis | Cluster): client is Cluster =>
  (client as { isCluster?: boolean }).isCluster === true;

/** The primaries (`host:port`) serving `keys` now, as the cluster client routes their commands. */
function primariesOf(cluster: Cluster, keys: Iterable<string>): string[] {
  const primaries = new Set<string>();
  for (const key of keys) {
    const primary = cluster.slots[calculateSlot(key)]?.[0];
    if (primary === undefined)
      throw new StoreUnavailableError('Redis Cluster has no primary serving a written key');
    primaries.add(primary);
  }
  return [...primaries];
}

/** The connection to the primary `host:port`; unavailable when the client has dropped it. */
function nodeAt(cluster: Cluster, primary: string): Redis {
  const node = cluster
    .nodes('master')
    .find(({ options }) => `${options.host}:${options.port}` === primary);
  if (node === undefined)
    throw new StoreUnavailableError('Redis Cluster lost the primary that took a write');
  return node;
}
