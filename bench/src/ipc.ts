import type { TokenEndpoint, UserGrantType } from './token-request.js';

/** What the bench parent asks a server child; each is answered by a message of the same `type`. */
export type ParentMessage =
  | { type: 'cpu-usage' }
  /** Mint `count` one-time credentials of `grant` for the web client, before any load. */
  | { type: 'mint'; grant: UserGrantType; count: number }
  /** Start a CPU profile of the main thread, or stop it and write it (a .cpuprofile) to `file`. */
  | { type: 'profile'; action: 'start' }
  | { type: 'profile'; action: 'stop'; file: string }
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; endpoint: TokenEndpoint }
  /** CPU time (user + system, all threads) the child has used so far. */
  | { type: 'cpu-usage'; micros: number }
  | { type: 'mint'; credentials: string[] }
  | { type: 'mint'; error: string }
  | { type: 'profile' };
