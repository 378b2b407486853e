import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { endWithBench } from './child-lifetime.js';
import type { ChildMessage, ParentMessage } from './ipc.js';
import type { ServerName } from './server-names.js';
import type { ServerCounters } from './servers/running-server.js';
import type { CredentialKind, TokenEndpoint } from './token-request.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
/**
 * A server child compiles its sources through tsx first: 20 s was once not enough on a 2-core CI
 * machine with four children starting at once beside other suites (test/bench/bench-servers).
 */
const START_TIMEOUT_MS = 45_000;

export interface LaunchedServer extends TokenEndpoint {
  /** The server process, for what is read from outside it (its resident memory). */
  readonly pid: number;
  /** Resolves when the server process exits, asked to or not. */
  readonly exited: Promise<void>;
  /** CPU time (user + system, all threads) the server process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** What the server counted so far (store operations, authenticator pushes); empty for some. */
  counters(): Promise<ServerCounters>;
  /**
   * Has the server mint `count` fresh credentials of `kind` for the web client: one-time codes
   * or refresh tokens, each good for exactly one token request, or ID tokens of the bench user
   * for CIBA requests. Only ours (on any store) and oidc-provider.
   */
  mint(kind: CredentialKind, count: number): Promise<string[]>;
  /** The table or key prefix of this run in a shared store, removed again when it stops. */
  readonly storePrefix?: string;
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

/** A server that needs a service (PostgreSQL, Redis) which does not answer: it is skipped. */
export class ServerUnavailableError extends Error {
  override name = 'ServerUnavailableError';
}

/**
 * Starts a benchmarked server in its own Node.js process, TypeScript sources run through tsx with
 * the bench tsconfig (so `@gatehouse-oidc/*` is the working tree, no build needed), with `env` added
 * to this process's environment. Rejects with ServerUnavailableError when a service the server
 * needs does not answer. The child ends with this process however it ends (see child-lifetime.ts).
 */
export function launchServer(
  name: ServerName,
  env: Readonly<Record<string, string>> = {},
): Promise<LaunchedServer> {
  const child = endWithBench(
    fork(ENTRY, [name], {
      cwd: BENCH_DIR,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, TSX_TSCONFIG_PATH: TSCONFIG },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    }),
  );
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
      if (message.type === 'unavailable') {
        clearTimeout(timer);
        child.off('exit', onEarlyExit);
        return reject(new ServerUnavailableError(`${name}: ${message.reason}`));
      }
      if (message.type !== 'ready') return fail(`sent ${message.type} before ready`);
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      const ask = askerOf(child, name, () => output);
      resolve({
        ...message.endpoint,
        pid: child.pid as number,
        exited,
        ...(message.storePrefix === undefined ? {} : { storePrefix: message.storePrefix }),
        async cpuMicros() {
          const reply = await ask({ type: 'cpu-usage' });
          return reply.type === 'cpu-usage' ? reply.micros : Number.NaN;
        },
        async counters() {
          const reply = await ask({ type: 'counters' });
          return reply.type === 'counters' ? reply.counters : {};
        },
        async mint(kind, count) {
          const reply = await ask({ type: 'mint', kind, count });
          if (reply.type !== 'mint') throw new Error(`${name} answered ${reply.type} to mint`);
          if ('error' in reply) throw new Error(`${name} could not mint ${kind}: ${reply.error}`);
          if (reply.credentials.length !== count) {
            throw new Error(`${name} minted ${reply.credentials.length} of ${count} ${kind}`);
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
