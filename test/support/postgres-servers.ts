import { chownSync, existsSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './ports.js';
import {
  run,
  ServerProcesses,
  serverBinaries,
  temporaryFolder,
  waitFor,
} from './server-binaries.js';
import { sql } from './service-admin.js';

/**
 * A PostgreSQL primary and a streaming standby made from it with pg_basebackup, on loopback
 * ports, in a temporary folder, for the failover test. PostgreSQL refuses to run as root: as
 * root, the servers run as the `postgres` user, who then owns the folder.
 */

/** Where Debian and Ubuntu install each major version's server binaries. */
const DEBIAN_ROOT = '/usr/lib/postgresql';
const debianFolders = existsSync(DEBIAN_ROOT)
  ? readdirSync(DEBIAN_ROOT)
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => join(DEBIAN_ROOT, version, 'bin'))
  : [];

/** The binaries, or undefined (after one loud line) when PostgreSQL's server is not installed. */
export const postgresBinaries = serverBinaries(
  'PostgreSQL failover',
  ['initdb', 'postgres', 'pg_basebackup'],
  debianFolders,
);

type Binaries = NonNullable<typeof postgresBinaries>;

/** The uid and gid to run the servers as: the postgres user's when we are root. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout)),
  );
  return { uid: uid as number, gid: gid as number };
}

export class PostgresPair {
  readonly #processes = new ServerProcesses();
  readonly #servers = new Map<number, ReturnType<ServerProcesses['start']>>();

  private constructor(
    readonly binaries: Binaries,
    readonly folder: ReturnType<typeof temporaryFolder>,
    readonly user: { uid: number; gid: number } | undefined,
    readonly primaryPort: number,
    readonly standbyPort: number,
  ) {}

  /** Both hosts, the primary first, wanting the one that accepts writes. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.primaryPort},127.0.0.1:${this.standbyPort}/postgres?target_session_attrs=read-write`;
  }

  static async start(binaries: Binaries): Promise<PostgresPair> {
    const [primaryPort, standbyPort] = (await freePorts(2)) as [number, number];
    const folder = temporaryFolder('postgres-failover');
    const user = await serverUser();
    if (user) chownSync(folder.path, user.uid, user.gid);
    const pair = new PostgresPair(binaries, folder, user, primaryPort, standbyPort);
    const primaryData = join(folder.path, 'primary');
    await pair.#as(binaries.initdb, [
      '-D',
      primaryData,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '--no-locale',
      '-E',
      'UTF8',
    ]);
    pair.#serve(primaryData, primaryPort);
    await pair.#ready(primaryPort);
    await pair.#as(binaries.pg_basebackup, [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      join(folder.path, 'standby'),
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    pair.#serve(join(folder.path, 'standby'), standbyPort);
    await waitFor('the standby to stream', async () => {
      const rows = await sql(
        pair.#at(primaryPort),
        "SELECT count(*)::int AS streaming FROM pg_stat_replication WHERE state = 'streaming'",
      );
      return rows[0]?.streaming === 1;
    });
    return pair;
  }

  /** Stops the primary as `pg_ctl stop -m fast` does; resolves once it has gone. */
  async stopPrimary(): Promise<void> {
    const server = this.#servers.get(this.primaryPort);
    this.#servers.delete(this.primaryPort);
    server?.child.kill('SIGINT');
    await server?.exited;
  }

  /** Promotes the standby; resolves once it accepts writes. */
  async promoteStandby(): Promise<void> {
    await sql(this.#at(this.standbyPort), 'SELECT pg_promote(true, 30)');
  }

  async stop(): Promise<void> {
    await this.#processes.stopAll();
    this.folder.remove();
  }

  #at(port: number): string {
    return `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  #as(command: string, args: string[]) {
    return run(command, args, { ...this.user, env: { ...process.env, LC_ALL: 'C' } });
  }

  #serve(data: string, port: number): void {
    const server = this.#processes.start(
      this.binaries.postgres,
      [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${this.folder.path}`,
        '-c',
        'fsync=off',
        '-c',
        'max_connections=60',
      ],
      this.user,
    );
    this.#servers.set(port, server);
  }

  async #ready(port: number): Promise<void> {
    await waitFor(`PostgreSQL on ${port}`, async () => {
      await sql(this.#at(port), 'SELECT 1');
      return true;
    });
  }
}
