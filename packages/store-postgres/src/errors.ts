import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { DatabaseError } from 'pg';

/**
 * SQLSTATE classes and codes that say the database cannot serve us right now, rather than that a
 * statement is wrong: connection exceptions (08), authentication (28), transaction rollbacks such
 * as deadlocks (40), lack of resources (53), lock or statement timeouts and shutdowns (55P03,
 * 57), system errors (58), a read-only standby after a failover (25006), a missing database
 * (3D000), and a schema the migration has not made or brought up to date yet: a missing table
 * (42P01), column (42703) or function (42883).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '40', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['25006', '3D000', '42P01', '42703', '42883', '55P03']);
const OUTDATED_SCHEMA_CODES = new Set(['42703', '42883']);

/**
 * Errors `pg` raises without a SQLSTATE when the connection is lost or a timeout fires. They are
 * plain `Error`s, so their messages are the only way to tell them apart.
 */
const DRIVER_FAILURES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/** Whether a statement failed for a reason outside the store's code: the database or the network. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseError) {
    const code = error.code ?? '';
    return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || UNAVAILABLE_CODES.has(code);
  }
  if (!(error instanceof Error)) return false;
  // Node's socket errors (ECONNRESET, EPIPE, ETIMEDOUT…), alone or gathered in an AggregateError.
  const code = (error as { code?: unknown }).code;
  if ('syscall' in error || (typeof code === 'string' && /^E[A-Z]{2,}$/.test(code))) return true;
  return DRIVER_FAILURES.test(error.message);
}

/**
 * Whether `error` says the store's host is gone or no longer takes writes: its connection broke
 * or was refused, the server is shutting down (FATAL), or it is a read-only standby now (25006,
 * after a failover). Waiting too long for a free connection of the pool is none of these.
 */
export function hostLost(error: unknown): boolean {
  if (error instanceof DatabaseError) return error.code === '25006' || !connectionSurvives(error);
  if (error instanceof Error && /^timeout exceeded when trying to connect/.test(error.message))
    return false;
  return isUnavailable(error);
}

/** Whether the connection that raised `error` may still carry statements. */
export function connectionSurvives(error: unknown): boolean {
  return error instanceof DatabaseError && error.severity !== 'FATAL' && error.severity !== 'PANIC';
}

export function unavailable(error: unknown, table: string): StoreUnavailableError {
  const code = error instanceof DatabaseError ? error.code : undefined;
  const message =
    code === '42P01'
      ? `PostgreSQL store table "${table}" does not exist: run the migration (gatehouse migrate --config …)`
      : code !== undefined && OUTDATED_SCHEMA_CODES.has(code)
        ? `PostgreSQL store table "${table}" was made by an earlier version: run the migration (gatehouse migrate --config …)`
        : `PostgreSQL store unavailable: ${error instanceof Error ? error.message : String(error)}`;
  return new StoreUnavailableError(message, { cause: error });
}
