import type { ServerCounters } from './servers/running-server.js';
import type { CredentialKind, TokenEndpoint } from './token-request.js';

/** What the bench parent asks a server child; each is answered by a message of the same `type`. */
export type ParentMessage =
  | { type: 'cpu-usage' }
  /** What the server counted so far: store operations, authenticator pushes. */
  | { type: 'counters' }
  /** Mint `count` credentials of `kind` for the web client, before any load. */
  | { type: 'mint'; kind: CredentialKind; count: number }
  /** Start a CPU profile of the main thread, or stop it and write it (a .cpuprofile) to `file`. */
  | { type: 'profile'; action: 'start' }
  | { type: 'profile'; action: 'stop'; file: string }
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; endpoint: TokenEndpoint; storePrefix?: string }
  /** The server could not start because a service it needs does not answer: skip it. */
  | { type: 'unavailable'; reason: string }
  /** CPU time (user + system, all threads) the child has used so far. */
  | { type: 'cpu-usage'; micros: number }
  | { type: 'counters'; counters: ServerCounters }
  | { type: 'mint'; credentials: string[] }
  | { type: 'mint'; error: string }
  | { type: 'profile' };
