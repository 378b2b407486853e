import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { freePort } from './ports.js';

/**
 * The JavaScript runtimes beyond Node.js that Gatehouse's Hono binding runs on, each from the npm
 * package of the root devDependencies (pnpm runs their install scripts: pnpm-workspace.yaml).
 * Each serves an ES module whose default export has a `fetch` method, the way the runtime serves
 * an app: `bun run`, `deno serve`, and workerd with a config like the one `wrangler dev` writes.
 */
export interface Runtime {
  name: 'bun' | 'deno' | 'workerd';
  binary: () => string;
  /** The command serving `module` on `port`; workerd's config is written next to the module. */
  command(module: string, port: number, compatibilityDate: string): string[];
  /** Environment variables the command needs beyond the test process's own. */
  env?: (port: number) => Record<string, string>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const packageDir = (name: string) =>
  dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));

export const RUNTIMES: readonly Runtime[] = [
  {
    name: 'bun',
    binary: () => join(packageDir('bun'), 'bin/bun.exe'),
    command: (module) => ['run', module],
    // Bun serves a default export with `fetch` on $PORT (on every interface: it has no setting).
    env: (port) => ({ PORT: String(port) }),
  },
  {
    name: 'deno',
    binary: () => join(packageDir('deno'), 'deno'),
    // `deno serve` grants the network access it listens with, and nothing else.
    command: (module, port) => ['serve', '--host', '127.0.0.1', '--port', String(port), module],
    env: () => ({ DENO_NO_UPDATE_CHECK: '1' }),
  },
  {
    name: 'workerd',
    binary: () => createRequire(import.meta.url)('workerd').default as string,
    command: (module, port, compatibilityDate) => {
      const config = join(dirname(module), 'workerd.capnp');
      writeFileSync(config, workerdConfig(basename(module), port, compatibilityDate));
      return ['serve', config];
    },
  },
];

/** The newest compatibility date the installed workerd supports. */
export const WORKERD_COMPATIBILITY_DATE: string = createRequire(import.meta.url)(
  'workerd',
).compatibilityDate;

/** One Worker serving `module` on 127.0.0.1:`port`, as `wrangler dev` would run it. */
function workerdConfig(module: string, port: number, compatibilityDate: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "${module}", esModule = embed "${module}")],
  compatibilityDate = "${compatibilityDate}",
);
`;
}

function installed(runtime: Runtime): boolean {
  const binary = runtime.binary();
  return existsSync(binary) && spawnSync(binary, ['--version']).status === 0;
}

/**
 * The runtimes a suite runs on: all of them, but on a developer machine where a binary does not run
 * (installed with --ignore-scripts, say) the others, with one line naming what is skipped. Under
 * CI every runtime is returned, so a missing one fails the suite instead.
 */
export function availableRuntimes(suite: string): readonly Runtime[] {
  if (process.env.CI) return RUNTIMES;
  const missing = RUNTIMES.filter((runtime) => !installed(runtime));
  if (missing.length > 0) {
    console.warn(
      `[${suite}] skipped on ${missing.map((runtime) => `${runtime.name} (${runtime.binary()} does not run)`).join(', ')}; \`pnpm install\` installs them and runs their install scripts`,
    );
  }
  return RUNTIMES.filter((runtime) => !missing.includes(runtime));
}

/**
 * Bundles `entry` into `outDir` as one ES module for runtimes without Node's APIs, as wrangler
 * does for a Worker; any import of a Node built-in fails the build. The workspace packages come
 * from their sources (test/tsconfig.json's paths), or with `installed` as the entry's
 * node_modules resolve them.
 */
export async function bundle(
  entry: string,
  outDir: string,
  packages: 'sources' | 'installed' = 'sources',
): Promise<string> {
  const outfile = join(outDir, `${basename(entry).replace(/\.[mc]?ts$/, '')}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    ...(packages === 'sources' ? { tsconfig: join(ROOT, 'test/tsconfig.json') } : {}),
    logLevel: 'silent',
  });
  return outfile;
}

export interface RuntimeServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Serves the bundled `module` on `runtime`, resolving once it answers HTTP. */
export async function serve(
  runtime: Runtime,
  module: string,
  compatibilityDate = WORKERD_COMPATIBILITY_DATE,
): Promise<RuntimeServer> {
  const port = await freePort();
  const child = spawn(runtime.binary(), runtime.command(module, port, compatibilityDate), {
    cwd: dirname(module),
    env: { ...process.env, NO_COLOR: '1', ...runtime.env?.(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // A binary that cannot start (missing under CI) reports here, then closes.
  child.once('error', (error) => collect(Buffer.from(String(error))));
  // 'close' comes after the last output, so the error below can quote it.
  let closed = false;
  child.once('close', () => {
    closed = true;
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (closed) throw new Error(`${runtime.name} exited (${child.exitCode}):\n${output}`);
    if (await answers(origin)) return { origin, close: () => stop(child) };
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`no answer from ${runtime.name} at ${origin}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function answers(origin: string): Promise<boolean> {
  return fetch(origin, { signal: AbortSignal.timeout(1_000) }).then(
    async (response) => {
      await response.body?.cancel();
      return true;
    },
    () => false,
  );
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
