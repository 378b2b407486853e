import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Database servers a test starts itself (a Redis Cluster, a Sentinel group, a PostgreSQL primary
 * and its standby), from the binaries installed on the machine, in a temporary folder. Without
 * the binaries the suite is skipped after one loud line; under `CI=true` absence fails instead.
 */

/** The path of `name` in `folders` or on PATH, or undefined when it is not installed. */
function findBinary(name: string, folders: readonly string[]): string | undefined {
  const candidates = [...folders, ...(process.env.PATH ?? '').split(delimiter)];
  for (const folder of candidates) {
    if (folder === '') continue;
    const path = join(folder, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

/**
 * The paths of `names` (looked up in `folders`, then on PATH), or undefined after one loud line
 * when one is missing; throws instead under `CI=true`.
 */
export function serverBinaries<const N extends string>(
  what: string,
  names: readonly N[],
  folders: readonly string[] = [],
): Record<N, string> | undefined {
  const found = names.map((name) => [name, findBinary(name, folders)] as const);
  const missing = found.filter(([, path]) => path === undefined).map(([name]) => name);
  if (missing.length === 0) return Object.fromEntries(found) as Record<N, string>;
  const message = `${what} tests need ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed`;
  if (process.env.CI === 'true') throw new Error(`${message} (CI=true)`);
  console.warn(`\n!!! ${what} tests SKIPPED: ${message}. Under CI=true this fails.\n`);
  return undefined;
}

export const run = promisify(execFile);

/** A temporary folder, removed by `remove`, or when the worker exits if nothing did before. */
export function temporaryFolder(label: string) {
  const path = mkdtempSync(join(tmpdir(), `gatehouse-${label}-`));
  const remove = () => rmSync(path, { recursive: true, force: true });
  process.once('exit', remove);
  return { path, remove };
}

/** Child processes started by a test, killed when it ends, or when the worker exits. */
export class ServerProcesses {
  readonly #children = new Set<ChildProcess>();

  constructor() {
    process.once('exit', () => {
      for (const child of this.#children) child.kill('SIGKILL');
    });
  }

  /** Starts `command`; its output is kept only to explain a failure. */
  start(command: string, args: readonly string[], options: { uid?: number; gid?: number } = {}) {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#children.add(child);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => {
        this.#children.delete(child);
        resolve(code);
      });
    });
    return { child, exited, output: () => output };
  }

  /** Kills every process still running and waits for them to go. */
  async stopAll(): Promise<void> {
    const exits = [...this.#children].map(
      (child) => new Promise((resolve) => child.once('exit', resolve)),
    );
    for (const child of this.#children) child.kill('SIGKILL');
    await Promise.all(exits);
  }
}

/** Retries `check` every 50 ms until it resolves truthy, failing after `withinMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  withinMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}`, last ? { cause: last } : undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
