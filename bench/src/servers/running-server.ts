import type { TokenEndpoint } from '../token-request.js';

/** A benchmarked server listening on 127.0.0.1. */
export interface RunningServer extends TokenEndpoint {
  close(): Promise<void>;
}
