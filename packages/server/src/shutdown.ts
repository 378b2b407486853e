import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** How long in-flight requests may take before their connections are cut. */
  graceMs: number;
  log: (line: string) => void;
  exit: (code: number) => void;
}

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (cutting them
 * after the grace period), close the store through the app's onClose hook, then exit 0.
 * Returns a function that removes the signal handlers.
 */
export function closeOnSignals(
  app: FastifyInstance,
  { graceMs, log, exit }: ShutdownOptions,
): () => void {
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log(`${signal} received: finishing in-flight requests, then stopping`);
    const cut = setTimeout(() => {
      log(`requests still running after ${graceMs} ms: closing their connections`);
      app.server.closeAllConnections();
    }, graceMs);
    let code = 0;
    try {
      await app.close();
    } catch (error) {
      log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      code = 1;
    }
    clearTimeout(cut);
    exit(code);
  };
  const onSignal = (signal: NodeJS.Signals) => void shutdown(signal);
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
  };
}
