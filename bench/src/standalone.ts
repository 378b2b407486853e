import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { endWithBench } from './child-lifetime.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const CLI = fileURLToPath(new URL('../../packages/server/src/cli/main.ts', import.meta.url));
/** Preloaded into the server: it shuts down when the IPC channel to this process closes. */
const EXIT_WITH_PARENT = new URL('./exit-with-parent.ts', import.meta.url).href;

/** A `gatehouse serve` process of the bench, on a loopback port of its own. */
export interface Standalone {
  /** `http://127.0.0.1:{port}`. */
  readonly origin: string;
  readonly pid: number;
  /** Its admin API's bearer token. */
  readonly adminToken: string;
  /** Resolves when the process exits. */
  readonly exited: Promise<unknown>;
  /** A request to the admin API, `path` under `/admin`, with the token. */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Its CPU time so far, every thread (user and system), in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts `gatehouse serve` from the working tree's sources (through tsx, as the other servers of
 * the bench) with `config` and an admin token of its own; `base_url` and `admin_token` are set
 * here, `nodeArguments` go to node (`--cpu-prof`). Resolves once it listens. It is signalled when
 * this process exits and shuts down by itself when this process dies (an IPC channel it watches).
 */
export async function startStandalone(
  config: Record<string, unknown>,
  { nodeArguments = [] }: { nodeArguments?: readonly string[] } = {},
): Promise<Standalone> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const adminToken = randomBytes(24).toString('base64url');
  const file = join(dir, 'gatehouse.json');
  writeFileSync(
    file,
    JSON.stringify({ base_url: 'http://127.0.0.1:3000', ...config, admin_token: adminToken }),
  );
  const child = endWithBench(
    spawn(
      process.execPath,
      [
        ...nodeArguments,
        '--import',
        'tsx',
        '--import',
        EXIT_WITH_PARENT,
        CLI,
        'serve',
        '--config',
        file,
        '--port',
        '0',
      ],
      {
        cwd: BENCH_DIR,
        env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    ),
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  let stdout = '';
  const origin = await new Promise<string>((resolve, reject) => {
    // Kept until it listens, for the error should it exit first; read and dropped after (its
    // event log goes on for every token).
    let listening = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!listening) output += chunk;
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (listening) return;
      output += chunk;
      stdout += chunk;
      const found = /gatehouse listening on (http:\/\/\S+)/.exec(stdout);
      if (found) {
        listening = true;
        resolve(found[1] as string);
      }
    });
    void exited.then(() => reject(new Error(`gatehouse serve exited:\n${output}`)));
  });
  const pid = child.pid as number;
  return {
    origin,
    pid,
    adminToken,
    exited,
    admin: (path, init = {}) =>
      fetch(`${origin}/admin${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${adminToken}`,
          'content-type': 'application/json',
          ...init.headers,
        },
      }),
    cpuMicros: () => processCpuMicros(pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process, as `ps` reports it (KiB), in bytes. */
export async function residentBytes(pid: number): Promise<number> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(pid)]);
  return Number(stdout.trim()) * 1024;
}

/**
 * CPU time of a process (all its threads, user and system) in microseconds, from Linux's
 * /proc/{pid}/stat: fields 14 and 15, in clock ticks of 10 ms.
 */
async function processCpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10_000;
}
