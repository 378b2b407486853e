/** Receives unexpected errors with where they happened; never the query, headers or body. */
export type ErrorReporter = (error: unknown, request: { method: string; path: string }) => void;

/** The server's default: one entry on stderr per unexpected error. */
export const reportToStderr: ErrorReporter = (error, { method, path }) => {
  const detail =
    error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`[gatehouse] ${method} ${path}: ${detail}\n`);
};
