import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage } from './ipc.js';
import type { ServerName } from './server-names.js';
import type { TokenEndpoint } from './token-request.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const START_TIMEOUT_MS = 20_000;

export interface LaunchedServer extends TokenEndpoint {
  /** CPU time (user + system, all threads) the server process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** Asks the child to close its server and waits for it to exit. */
  stop(): Promise<void>;
}

export interface LaunchOptions {
  /** Extra node flags for the child, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
}

/**
 * Starts a benchmarked server in its own Node.js process, TypeScript sources run through tsx with
 * the bench tsconfig (so `@gatehouse/*` is the working tree, no build needed).
 */
export function launchServer(
  name: ServerName,
  options: LaunchOptions = {},
): Promise<LaunchedServer> {
  const child = fork(ENTRY, [name], {
    cwd: BENCH_DIR,
    execArgv: ['--import', 'tsx', ...(options.nodeFlags ?? [])],
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
      const send = (request: ParentMessage) => child.send(request);
      resolve({
        ...message.endpoint,
        cpuMicros: () =>
          new Promise((answer) => {
            child.once('message', (reply: ChildMessage) =>
              answer(reply.type === 'cpu-usage' ? reply.micros : Number.NaN),
            );
            send({ type: 'cpu-usage' });
          }),
        async stop() {
          if (child.connected) send({ type: 'stop' });
          await exited;
        },
      });
    });
  });
}
