import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts } from './ports.js';
import {
  run,
  ServerProcesses,
  serverBinaries,
  temporaryFolder,
  waitFor,
} from './server-binaries.js';

/**
 * A Redis Cluster and a Sentinel group of real `redis-server` processes on loopback ports, in a
 * temporary folder, with the faults the scale-out tests cause: a slot migration, a manual
 * failover, a primary killed. Failure detection is set to one second so a failover takes a few.
 */

const binaries = () => serverBinaries('Redis Cluster and Sentinel', ['redis-server', 'redis-cli']);

/** The binaries, or undefined (after one loud line) when Redis is not installed. */
export const redisBinaries = binaries();

type Binaries = NonNullable<typeof redisBinaries>;

/** What every test server of ours runs with: loopback only, nothing persisted. */
const serverArgs = (port: number, folder: string) => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--dir',
  folder,
  '--save',
  '',
  '--appendonly',
  'no',
  '--dbfilename',
  `dump-${port}.rdb`,
];

/** Stops the servers' processes where they are; the function returned lets them go on. */
function freeze(servers: Array<ReturnType<ServerProcesses['start']> | undefined>): () => void {
  for (const server of servers) server?.child.kill('SIGSTOP');
  return () => {
    for (const server of servers) server?.child.kill('SIGCONT');
  };
}

/** One node of a cluster as CLUSTER NODES lists it. */
export interface ClusterNode {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  /** The primary's id, for a replica. */
  primaryId: string | undefined;
}

export class RedisCluster {
  readonly #processes = new ServerProcesses();
  readonly #servers = new Map<number, ReturnType<ServerProcesses['start']>>();

  private constructor(
    readonly binaries: Binaries,
    readonly folder: ReturnType<typeof temporaryFolder>,
    readonly ports: readonly number[],
  ) {}

  /** `redis+cluster://` naming every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  /**
   * Three primaries, each with `replicas` replicas (one unless told), every slot assigned and
   * every replica in sync.
   */
  static async start(binaries: Binaries, { replicas = 1 } = {}): Promise<RedisCluster> {
    const nodes = 3 * (1 + replicas);
    const ports = await freePorts(2 * nodes);
    const folder = temporaryFolder('redis-cluster');
    const cluster = new RedisCluster(binaries, folder, ports.slice(0, nodes));
    cluster.ports.forEach((port, index) => {
      const server = cluster.#processes.start(binaries['redis-server'], [
        ...serverArgs(port, folder.path),
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(ports[nodes + index]),
        '--cluster-config-file',
        join(folder.path, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '1000',
      ]);
      cluster.#servers.set(port, server);
    });
    for (const port of cluster.ports)
      await waitFor(`redis ${port}`, async () => (await cluster.cli(port, 'PING')) === 'PONG');
    await run(binaries['redis-cli'], [
      '--cluster',
      'create',
      ...cluster.ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    await cluster.settled();
    return cluster;
  }

  /** A command's reply, as redis-cli prints it. */
  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run(this.binaries['redis-cli'], ['-p', String(port), ...args]);
    return stdout.trim();
  }

  /** The ports of the nodes still running. */
  get running(): number[] {
    return [...this.#servers.keys()];
  }

  async nodes(): Promise<ClusterNode[]> {
    const listing = await this.cli(this.running[0] as number, 'CLUSTER', 'NODES');
    return listing.split('\n').map((line) => {
      const [id = '', address = '', flags = '', primaryId = '-'] = line.split(' ');
      const port = Number(/:(\d+)@/.exec(address)?.[1]);
      return {
        id,
        port,
        primary: flags.includes('master'),
        failed: flags.includes('fail'),
        primaryId: primaryId === '-' ? undefined : primaryId,
      };
    });
  }

  /**
   * Waits until every running node says the cluster is ok and sees three live primaries, and
   * every running replica is in sync with its primary.
   */
  async settled(): Promise<void> {
    await waitFor('the cluster to settle', async () => {
      for (const port of this.running) {
        if (!(await this.cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        const replication = await this.cli(port, 'INFO', 'replication');
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
          return false;
      }
      const live = (await this.nodes()).filter((node) => node.primary && !node.failed);
      return live.length === 3;
    });
  }

  /** A running replica and its primary. */
  async pair(): Promise<{ primary: ClusterNode; replica: ClusterNode }> {
    const nodes = await this.nodes();
    for (const replica of nodes) {
      const primary = nodes.find((node) => node.id === replica.primaryId && !node.failed);
      if (primary && !replica.failed && this.#servers.has(replica.port))
        return { primary, replica };
    }
    throw new Error('no primary with a running replica');
  }

  /** `CLUSTER FAILOVER` at a replica: its primary hands over, losing nothing. */
  async manualFailover(): Promise<void> {
    const { replica } = await this.pair();
    await this.cli(replica.port, 'CLUSTER', 'FAILOVER');
    await waitFor('the manual failover', async () =>
      (await this.cli(replica.port, 'ROLE')).startsWith('master'),
    );
    await this.settled();
  }

  /** Freezes every replica (SIGSTOP) until the function returned is called. */
  async freezeReplicas(): Promise<() => void> {
    const replicas = (await this.nodes()).filter((node) => !node.primary);
    return freeze(replicas.map(({ port }) => this.#servers.get(port)));
  }

  /** Kills a primary that has a replica; resolves once the replica has taken over. */
  async killPrimary(): Promise<void> {
    const { primary, replica } = await this.pair();
    const server = this.#servers.get(primary.port);
    this.#servers.delete(primary.port);
    server?.child.kill('SIGKILL');
    await server?.exited;
    await waitFor('the replica to take over', async () =>
      (await this.cli(replica.port, 'ROLE')).startsWith('master'),
    );
    await this.settled();
  }

  /** Moves `slots` slots, with their keys, from one primary to another (redis-cli's reshard). */
  async migrateSlots(slots: number): Promise<void> {
    const primaries = (await this.nodes()).filter((node) => node.primary && !node.failed);
    const [from, to] = primaries as [ClusterNode, ClusterNode];
    await run(this.binaries['redis-cli'], [
      '--cluster',
      'reshard',
      `127.0.0.1:${to.port}`,
      '--cluster-from',
      from.id,
      '--cluster-to',
      to.id,
      '--cluster-slots',
      String(slots),
      '--cluster-yes',
    ]);
    await this.settled();
  }

  async stop(): Promise<void> {
    await this.#processes.stopAll();
    this.folder.remove();
  }
}

/** One Redis server on its own: the bench measures a Cluster beside it; a test makes it a replica. */
export class RedisServer {
  readonly #processes = new ServerProcesses();
  #process: ReturnType<ServerProcesses['start']> | undefined;

  private constructor(
    readonly binaries: Binaries,
    readonly folder: ReturnType<typeof temporaryFolder>,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(binaries: Binaries): Promise<RedisServer> {
    const [port] = (await freePorts(1)) as [number];
    const folder = temporaryFolder('redis-server');
    const server = new RedisServer(binaries, folder, port);
    server.#process = server.#processes.start(
      binaries['redis-server'],
      serverArgs(port, folder.path),
    );
    await waitFor(`redis ${port}`, async () => (await server.cli('PING')) === 'PONG');
    return server;
  }

  async cli(...args: string[]): Promise<string> {
    const { stdout } = await run(this.binaries['redis-cli'], ['-p', String(this.port), ...args]);
    return stdout.trim();
  }

  /** Stops the server (SIGSTOP) until the function returned is called. */
  freeze(): () => void {
    return freeze([this.#process]);
  }

  async stop(): Promise<void> {
    await this.#processes.stopAll();
    this.folder.remove();
  }
}

/** A primary, its replica and three sentinels watching them as the group `gatehouse`. */
export class SentinelGroup {
  static readonly GROUP = 'gatehouse';
  readonly #processes = new ServerProcesses();
  readonly #servers = new Map<number, ReturnType<ServerProcesses['start']>>();

  private constructor(
    readonly binaries: Binaries,
    readonly folder: ReturnType<typeof temporaryFolder>,
    readonly dataPorts: readonly number[],
    readonly sentinelPorts: readonly number[],
  ) {}

  /** `redis+sentinel://` naming the sentinels and the group. */
  get url(): string {
    const sentinels = this.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
    return `redis+sentinel://${sentinels}/${SentinelGroup.GROUP}`;
  }

  static async start(binaries: Binaries): Promise<SentinelGroup> {
    const [primary, replica, ...sentinels] = (await freePorts(5)) as [number, number, ...number[]];
    const folder = temporaryFolder('redis-sentinel');
    const group = new SentinelGroup(binaries, folder, [primary, replica], sentinels);
    const startServer = (port: number, extra: string[]) =>
      group.#servers.set(
        port,
        group.#processes.start(binaries['redis-server'], [
          ...serverArgs(port, folder.path),
          ...extra,
        ]),
      );
    startServer(primary, []);
    startServer(replica, ['--replicaof', '127.0.0.1', String(primary)]);
    for (const port of sentinels) {
      const config = join(folder.path, `sentinel-${port}.conf`);
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${folder.path}`,
          `sentinel monitor ${SentinelGroup.GROUP} 127.0.0.1 ${primary} 2`,
          `sentinel down-after-milliseconds ${SentinelGroup.GROUP} 1000`,
          `sentinel failover-timeout ${SentinelGroup.GROUP} 3000`,
          '',
        ].join('\n'),
      );
      group.#servers.set(
        port,
        group.#processes.start(binaries['redis-server'], [config, '--sentinel']),
      );
    }
    await waitFor('the replica to sync', async () =>
      (await group.cli(replica, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    await group.agreeOn(primary);
    await group.#knowReplica(replica);
    return group;
  }

  /**
   * Waits until every sentinel lists `port` as a replica in good standing. A sentinel learns of
   * replicas from the primary's INFO, every 10 s: one elected to lead a failover before it heard
   * of the replica finds no replica to promote, and keeps failing while the primary is down.
   */
  async #knowReplica(port: number): Promise<void> {
    await waitFor('the sentinels to know the replica', async () => {
      for (const sentinel of this.sentinelPorts) {
        const fields = (
          await this.cli(sentinel, 'SENTINEL', 'REPLICAS', SentinelGroup.GROUP)
        ).split('\n');
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        if (field('port') !== String(port) || field('flags') !== 'slave') return false;
      }
      return true;
    });
  }

  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run(this.binaries['redis-cli'], ['-p', String(port), ...args]);
    return stdout.trim();
  }

  /** The port of the primary the sentinels name. */
  async primary(): Promise<number> {
    const reply = await this.cli(
      this.sentinelPorts[0] as number,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      SentinelGroup.GROUP,
    );
    return Number(reply.split('\n')[1]);
  }

  /** Waits until every sentinel names `port` as the primary and knows the other sentinels. */
  async agreeOn(port: number): Promise<void> {
    await waitFor('the sentinels to agree', async () => {
      for (const sentinel of this.sentinelPorts) {
        const master = await this.cli(sentinel, 'SENTINEL', 'MASTER', SentinelGroup.GROUP);
        const fields = master.split('\n');
        const field = (name: string) => fields[fields.indexOf(name) + 1];
        if (field('port') !== String(port) || Number(field('num-other-sentinels')) < 2)
          return false;
      }
      return true;
    });
  }

  /** Freezes the replica (SIGSTOP) until the function returned is called. */
  async freezeReplica(): Promise<() => void> {
    const primary = await this.primary();
    const replica = this.dataPorts.find((port) => port !== primary) as number;
    return freeze([this.#servers.get(replica)]);
  }

  /** Kills the primary; resolves once the sentinels have promoted the replica. */
  async killPrimary(): Promise<void> {
    const primary = await this.primary();
    const replica = this.dataPorts.find((port) => port !== primary) as number;
    const server = this.#servers.get(primary);
    this.#servers.delete(primary);
    server?.child.kill('SIGKILL');
    await server?.exited;
    try {
      // Long enough for the sentinels to try again after a failed attempt (they wait twice the
      // failover timeout), as a loaded machine sometimes needs.
      await waitFor(
        'the replica to be promoted',
        async () => (await this.cli(replica, 'ROLE')).startsWith('master'),
        40_000,
      );
    } catch (error) {
      // What the sentinels said of the failover is what explains one that did not happen.
      const logs = this.sentinelPorts.map(
        (port) => `sentinel ${port}:\n${this.#servers.get(port)?.output() ?? ''}`,
      );
      throw new Error(`${(error as Error).message}\n${logs.join('\n')}`, { cause: error });
    }
    await this.agreeOn(replica);
  }

  async stop(): Promise<void> {
    await this.#processes.stopAll();
    this.folder.remove();
  }
}
