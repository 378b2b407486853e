/**
 * Receives unexpected errors with where they happened (no request for background work such as
 * a CIBA push); never the query, headers or body.
 */
export type ErrorReporter = (
  error: unknown,
  request: { method: string; path: string } | undefined,
) => void;

/** How many causes an entry follows at most: a cause chain could be cyclic or endless. */
const MAX_CAUSES = 8;

/**
 * The server's default: one entry on stderr per unexpected error, with its stack and the message
 * of each cause (a driver's error under a store's, say), the whole entry passed through `redact`
 * (the server takes the store URL's password out, as it does in its other store messages).
 */
export function stderrReporter(redact: (text: string) => string = (text) => text): ErrorReporter {
  return (error, request) => {
    const where = request ? `${request.method} ${request.path}` : 'background';
    process.stderr.write(`${redact(`[gatehouse] ${where}: ${describeError(error)}`)}\n`);
  };
}

/** The error's stack, then one `caused by:` line per cause, naming each cause's code if it has one. */
export function describeError(error: unknown): string {
  const lines = [
    error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error),
  ];
  const seen = new Set<unknown>([error]);
  let cause = error instanceof Error ? error.cause : undefined;
  while (cause !== undefined && !seen.has(cause) && seen.size <= MAX_CAUSES) {
    seen.add(cause);
    lines.push(`  caused by: ${summary(cause)}`);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return lines.join('\n');
}

/**
 * One error in a line. An AggregateError (a refused connection to every address of a host) has
 * no message of its own, so its errors' messages stand in for it.
 */
function summary(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const name = typeof code === 'string' ? `${error.name} [${code}]` : error.name;
  const inner =
    error instanceof AggregateError
      ? error.errors.map((each: unknown) => (each instanceof Error ? each.message : String(each)))
      : [];
  const message = [error.message, ...inner].filter((text) => text !== '').join('; ');
  return `${name}: ${message}`;
}

/** A request's path as reports name it: without the query, nor an auth_req_id in full. */
export function reportedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? url;
  return path.replace(
    /(\/ciba\/)([^/]+)/,
    (_match, prefix: string, authReqId: string) => `${prefix}${redactAuthReqId(authReqId)}`,
  );
}

/**
 * An auth_req_id as reports may show it: its first characters, enough to match two entries
 * about one request. The whole value is a credential of the polling client.
 */
export function redactAuthReqId(authReqId: string): string {
  return `${authReqId.slice(0, 6)}…`;
}
