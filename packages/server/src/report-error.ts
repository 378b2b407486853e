/**
 * Receives unexpected errors with where they happened (no request for background work such as
 * a CIBA push); never the query, headers or body.
 */
export type ErrorReporter = (
  error: unknown,
  request: { method: string; path: string } | undefined,
) => void;

/** The server's default: one entry on stderr per unexpected error. */
export const reportToStderr: ErrorReporter = (error, request) => {
  const detail =
    error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  const where = request ? `${request.method} ${request.path}` : 'background';
  process.stderr.write(`[gatehouse] ${where}: ${detail}\n`);
};

/**
 * An auth_req_id as reports may show it: its first characters, enough to match two entries
 * about one request. The whole value is a credential of the polling client.
 */
export function redactAuthReqId(authReqId: string): string {
  return `${authReqId.slice(0, 6)}…`;
}
