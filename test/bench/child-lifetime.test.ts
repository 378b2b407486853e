import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const BENCH_DIR = fileURLToPath(new URL('../../bench', import.meta.url));
const module = (name: string) => new URL(`../../bench/src/${name}`, import.meta.url).href;

/**
 * A stand-in for a bench entry point: starts one server child the way the bench does (argv 2:
 * `launch` for a forked bench server, `standalone` for `gatehouse serve`), prints its pid, then
 * fails (argv 3 `throw`) or waits to be killed; with argv 4 `signals` it handles signals as
 * `pnpm bench` does.
 */
const PARENT = `
const [kind, end, signals] = process.argv.slice(2);
const lifetime = await import(${JSON.stringify(module('child-lifetime.ts'))});
if (signals === 'signals') lifetime.exitOnSignals();
const server =
  kind === 'standalone'
    ? await (await import(${JSON.stringify(module('standalone.ts'))})).startStandalone({ realms: [{ name: 'bench' }] })
    : await (await import(${JSON.stringify(module('launch.ts'))})).launchServer('ceiling');
console.log('child ' + server.pid);
if (end === 'throw') throw new Error('the bench failed');
setInterval(() => {}, 1000);
`;

const folder = mkdtempSync(join(tmpdir(), 'gatehouse-child-lifetime-'));
const parentScript = join(folder, 'parent.mts');
writeFileSync(parentScript, PARENT);

/** Whether a process is gone: no such pid, or a zombie nobody reaped yet (it has exited). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return true;
  }
}

/** Resolves once `pid` is gone; rejects after `withinMs`. */
async function exitsWithin(pid: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!gone(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still running after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const left: number[] = [];

/** Starts the stand-in parent and resolves with it and its server child's pid once it printed it. */
async function startParent(
  args: string[],
): Promise<{ parent: ChildProcess; child: number; exited: Promise<number | null> }> {
  const parent = spawn(process.execPath, ['--import', 'tsx', parentScript, ...args], {
    cwd: BENCH_DIR,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(BENCH_DIR, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => parent.once('exit', resolve));
  let output = '';
  const child = await new Promise<number>((resolve, reject) => {
    parent.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const found = /child (\d+)/.exec(output);
      if (found) resolve(Number(found[1]));
    });
    void exited.then(() => reject(new Error(`the parent exited first:\n${output}`)));
  });
  left.push(child);
  expect(gone(child)).toBe(false);
  return { parent, child, exited };
}

describe("the bench's child processes end with the bench", () => {
  afterEach(() => {
    // A failed case leaves no server behind.
    for (const pid of left.splice(0)) if (!gone(pid)) process.kill(pid, 'SIGKILL');
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('a bench server exits by itself within 5 s when the bench is killed (SIGKILL)', async () => {
    const { parent, child, exited } = await startParent(['launch', 'wait']);
    parent.kill('SIGKILL');
    await exited;
    await exitsWithin(child, 5000);
  }, 60_000);

  it('a bench server exits when the bench fails with an uncaught error', async () => {
    const { child, exited } = await startParent(['launch', 'throw']);
    expect(await exited).toBe(1);
    await exitsWithin(child, 5000);
  }, 60_000);

  it('SIGTERM to the bench exits it with 143, and its server with it', async () => {
    const { parent, child, exited } = await startParent(['launch', 'wait', 'signals']);
    parent.kill('SIGTERM');
    expect(await exited).toBe(143);
    await exitsWithin(child, 5000);
  }, 60_000);

  it('a `gatehouse serve` child shuts down within 5 s when the bench is killed (SIGKILL)', async () => {
    const { parent, child, exited } = await startParent(['standalone', 'wait']);
    parent.kill('SIGKILL');
    await exited;
    await exitsWithin(child, 5000);
  }, 60_000);
});
