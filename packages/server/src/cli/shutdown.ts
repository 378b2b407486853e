import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** How long in-flight requests may take before their connections are cut. */
  graceMs: number;
  /**
   * How long the whole shutdown may take, from the signal, before the process exits 1 anyway: a
   * store that stops answering can hold up closing it for ever. Default `graceMs` + 5 s.
   */
  deadlineMs?: number;
  log: (line: string) => void;
  exit: (code: number) => void;
}

/** What the default deadline leaves for closing the store once requests are done or cut. */
const CLOSE_ALLOWANCE_MS = 5000;

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (cutting them
 * after the grace period), close the store through the app's onClose hook, then exit 0. Exits 1
 * when that has not finished by the deadline, or at once on a second signal.
 * Returns a function that removes the signal handlers.
 */
export function closeOnSignals(
  app: FastifyInstance,
  { graceMs, deadlineMs = graceMs + CLOSE_ALLOWANCE_MS, log, exit }: ShutdownOptions,
): () => void {
  let closing = false;
  let exited = false;
  const timers: NodeJS.Timeout[] = [];
  const finish = (code: number) => {
    if (exited) return;
    exited = true;
    for (const timer of timers) clearTimeout(timer);
    exit(code);
  };
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) {
      log(`${signal} received again: exiting without finishing`);
      finish(1);
      return;
    }
    closing = true;
    log(`${signal} received: finishing in-flight requests, then stopping`);
    timers.push(
      setTimeout(() => {
        log(`requests still running after ${graceMs} ms: closing their connections`);
        app.server.closeAllConnections();
      }, graceMs),
      setTimeout(() => {
        log(
          `shutdown not finished after ${deadlineMs} ms (the store may not be answering): exiting`,
        );
        finish(1);
      }, deadlineMs),
    );
    let code = 0;
    try {
      await app.close();
    } catch (error) {
      log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      code = 1;
    }
    finish(code);
  };
  const onSignal = (signal: NodeJS.Signals) => void shutdown(signal);
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
  };
}
