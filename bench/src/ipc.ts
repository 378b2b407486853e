import type { TokenEndpoint } from './token-request.js';

/** What the bench parent asks a server child; each is answered by a message of the same `type`. */
export type ParentMessage = { type: 'cpu-usage' } | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; endpoint: TokenEndpoint }
  /** CPU time (user + system, all threads) the child has used so far. */
  | { type: 'cpu-usage'; micros: number };
