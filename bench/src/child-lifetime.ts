import type { ChildProcess } from 'node:child_process';

/**
 * Every child process of the bench dies with it. Two sides, because neither covers every end:
 *
 * - the parent signals its children (SIGTERM) when it exits, normally or on an error, and the
 *   bench's entry points turn SIGINT, SIGTERM and SIGHUP into such an exit (`exitOnSignals`);
 * - a child ends itself when its IPC channel to the parent closes (`exitWithParent`), which is
 *   the only thing left when the parent was killed with SIGKILL or crashed.
 *
 * Children stay in the bench's process group, so a Ctrl-C in the terminal reaches them as well.
 */

/** How long a child may take to close its server once its parent is gone. */
const CHILD_GRACE_MS = 5000;

const children = new Set<ChildProcess>();

/** Signals `child` (SIGTERM) if it is still running when this process exits. Returns it. */
export function endWithBench<T extends ChildProcess>(child: T): T {
  if (children.size === 0) process.once('exit', signalChildren);
  children.add(child);
  child.once('exit', () => {
    children.delete(child);
    if (children.size === 0) process.off('exit', signalChildren);
  });
  return child;
}

function signalChildren(): void {
  for (const child of children) child.kill('SIGTERM');
}

const EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/**
 * For a bench entry point: SIGINT, SIGTERM and SIGHUP exit the process (with the shell's code
 * for the signal) rather than end it without an `exit` event, so that its children are signalled
 * and the services it started (Redis servers of test/support) are stopped.
 */
export function exitOnSignals(): void {
  for (const [signal, code] of Object.entries(EXIT_CODES)) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the bench and its child processes`);
      process.exit(code);
    });
  }
}

/**
 * For a child process of the bench, started with an IPC channel: runs `shutdown` (close the
 * server, remove what it stored) and exits when the channel closes (the parent exited or was
 * killed, or the parent or `shutdown`'s caller disconnected) or on SIGTERM or SIGINT. Exits 1
 * when `shutdown` fails or takes longer than `graceMs`.
 */
export function exitWithParent(shutdown: () => Promise<unknown>, graceMs = CHILD_GRACE_MS): void {
  if (!process.channel) throw new Error('exitWithParent: this process has no IPC channel');
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    setTimeout(() => process.exit(1), graceMs).unref();
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('disconnect', end);
  process.once('SIGTERM', end);
  process.once('SIGINT', end);
}
