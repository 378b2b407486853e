import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage } from './ipc.js';
import type { ServerName } from './server-names.js';
import type { TokenEndpoint, UserGrantType } from './token-request.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface LaunchedServer extends TokenEndpoint {
  /** CPU time (user + system, all threads) the server process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /**
   * Has the server mint `count` fresh one-time credentials of `grant` (codes, refresh tokens)
   * for the web client, each good for exactly one token request. Only ours and oidc-provider.
   */
  mint(grant: UserGrantType, count: number): Promise<string[]>;
  /**
   * Profiles the server's main thread (V8's sampling profiler, through the inspector) from
   * `startProfile` until `stopProfile` writes the `.cpuprofile` to `file`: the measured run only,
   * not start-up, minting or warm-up.
   */
  startProfile(): Promise<void>;
  stopProfile(file: string): Promise<void>;
  /** Asks the child to close its server and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts a benchmarked server in its own Node.js process, TypeScript sources run through tsx with
 * the bench tsconfig (so `@gatehouse/*` is the working tree, no build needed).
 */
export function launchServer(name: ServerName): Promise<LaunchedServer> {
  const child = fork(ENTRY, [name], {
    cwd: BENCH_DIR,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${name} server ${reason}\n${output}`));
    };
    const onEarlyExit = (code: number | null) => fail(`exited with code ${code}`);
    const timer = setTimeout(
      () => fail(`did not start within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    child.once('exit', onEarlyExit);
    child.once('message', (message: ChildMessage) => {
      if (message.type !== 'ready') return fail(`sent ${message.type} before ready`);
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      const ask = askerOf(child, name, () => output);
      resolve({
        ...message.endpoint,
        async cpuMicros() {
          const reply = await ask({ type: 'cpu-usage' });
          return reply.type === 'cpu-usage' ? reply.micros : Number.NaN;
        },
        async mint(grant, count) {
          const reply = await ask({ type: 'mint', grant, count });
          if (reply.type !== 'mint') throw new Error(`${name} answered ${reply.type} to mint`);
          if ('error' in reply) throw new Error(`${name} could not mint ${grant}: ${reply.error}`);
          if (reply.credentials.length !== count) {
            throw new Error(`${name} minted ${reply.credentials.length} of ${count} ${grant}`);
          }
          return reply.credentials;
        },
        async startProfile() {
          await ask({ type: 'profile', action: 'start' });
        },
        async stopProfile(file) {
          await ask({ type: 'profile', action: 'stop', file });
        },
        async stop() {
          if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
          await exited;
        },
      });
    });
  });
}

/**
 * Sends a request to the child and resolves with its answer, the next reply of the same `type`
 * (the child answers requests of one type in the order they came). Rejects if the child exits.
 */
function askerOf(child: ChildProcess, name: ServerName, output: () => string) {
  type Pending = { resolve(reply: ChildMessage): void; reject(error: Error): void };
  const waiting = new Map<ChildMessage['type'], Pending[]>();
  child.on('message', (reply: ChildMessage) => waiting.get(reply.type)?.shift()?.resolve(reply));
  child.once('exit', (code) => {
    for (const pending of [...waiting.values()].flat()) {
      pending.reject(new Error(`${name} server exited with code ${code}\n${output()}`));
    }
    waiting.clear();
  });
  return (request: Exclude<ParentMessage, { type: 'stop' }>) =>
    new Promise<ChildMessage>((resolve, reject) => {
      const queue = waiting.get(request.type) ?? [];
      queue.push({ resolve, reject });
      waiting.set(request.type, queue);
      child.send(request);
    });
}
