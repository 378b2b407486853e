import type { RedisServerStats } from '../../../test/support/service-admin.js';
import type { CredentialKind, TokenEndpoint } from '../token-request.js';

/** What a server counted since it started, for the per-request columns and checks. */
export interface ServerCounters {
  /** Calls to its Store, per method (ours only). */
  readonly storeOps?: Readonly<Record<string, number>>;
  /** CIBA requests handed to its (no-op) authenticator push. */
  readonly pushes?: number;
  /**
   * Requests it answered (ours only). Counted once no request is in flight, so the store
   * operations above are exactly those of these requests (and of background work, such as the
   * signing keys' refresh).
   */
  readonly requests?: number;
  /** The Redis server's counters, for ours on Redis: its CPU, commands and reads. */
  readonly service?: RedisServerStats;
}

/** A benchmarked server listening on 127.0.0.1. */
export interface RunningServer extends TokenEndpoint {
  /**
   * Mints `count` credentials of `kind` for the web client (see token-request.ts): one-time
   * codes or refresh tokens, each good for one token request, or ID tokens of the bench user.
   * Absent on servers that mint nothing (the ceiling, the standalone server).
   */
  mint?(kind: CredentialKind, count: number): Promise<string[]>;
  /** What it counted so far; for ours, once no request is in flight. */
  counters?(): ServerCounters | Promise<ServerCounters>;
  /** The table or key prefix of this run in a shared store, removed again by `close`. */
  readonly storePrefix?: string;
  close(): Promise<void>;
}
