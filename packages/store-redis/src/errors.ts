import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { ReplyError } from 'ioredis';

/**
 * Error replies that say Redis cannot serve a command right now, rather than that the command is
 * wrong: loading its dataset, a script running too long, out of memory, a replica or a primary
 * cut off from its replicas, a cluster in trouble or moving a slot, persistence failing (MISCONF), and
 * authentication refused. Every other reply (WRONGTYPE, NOPERM, ERR…) is a bug or a
 * misconfiguration, thrown as it is.
 */
const UNAVAILABLE_REPLIES = new Set([
  'LOADING',
  'BUSY',
  'OOM',
  'READONLY',
  'MASTERDOWN',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'MOVED',
  'ASK',
  'NOAUTH',
  'WRONGPASS',
  'MISCONF',
  'NOREPLICAS',
]);

/**
 * The errors ioredis raises itself when a connection is missing, closes or stays silent, and on a
 * Cluster when no node serves a slot (redirections that never settle during a failover, no slot
 * map). They are plain `Error`s, so their messages are the only way to tell them apart.
 */
const CLIENT_FAILURES =
  /^(Connection is closed\.|Command timed out|Stream isn't writeable|Socket timeout|Command aborted due to connection close|Reached the max retries per request limit|Too many Cluster redirections|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available)/;

/** ioredis's errors for commands dropped with their connection (redis-errors' AbortError family). */
const ABORTED = new Set(['AbortError', 'InterruptError', 'MaxRetriesPerRequestError']);

/**
 * The error code of a reply: its first word, or with Redis before 7, for a command a script ran,
 * the code that `ERR Error running script …: -CODE …` wraps.
 */
export function replyCode(error: unknown): string | undefined {
  if (!(error instanceof ReplyError)) return undefined;
  const message: string = (error as Error).message;
  const wrapped = /^ERR Error running script .*?: -([A-Z]+)\b/.exec(message);
  return wrapped?.[1] ?? /^[A-Z]+\b/.exec(message)?.[0];
}

/** Whether a command failed for a reason outside the store's code: Redis or the network. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof ReplyError) return UNAVAILABLE_REPLIES.has(replyCode(error) ?? '');
  if (!(error instanceof Error)) return false;
  if (ABORTED.has(error.name)) return true;
  // Node's socket errors (ECONNRESET, EPIPE, ETIMEDOUT…).
  const code = (error as { code?: unknown }).code;
  if ('syscall' in error || (typeof code === 'string' && /^E[A-Z]{2,}$/.test(code))) return true;
  return CLIENT_FAILURES.test(error.message);
}

/** The failure as the provider's 503 takes it, naming the reply's code, never its arguments. */
export function unavailable(error: unknown, timeoutMs: number): StoreUnavailableError {
  const code = replyCode(error);
  const message =
    code !== undefined
      ? `Redis is unavailable: it answered ${code}`
      : error instanceof Error && error.message === 'Command timed out'
        ? `Redis did not answer within ${timeoutMs} ms`
        : 'Redis is unavailable';
  return new StoreUnavailableError(message, { cause: error });
}
