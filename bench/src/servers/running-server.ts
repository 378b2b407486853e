import type { TokenEndpoint, UserGrantType } from '../token-request.js';

/** A benchmarked server listening on 127.0.0.1. */
export interface RunningServer extends TokenEndpoint {
  /**
   * Mints `count` one-time credentials of `grant` for the web client (see token-request.ts), each
   * good for one token request. Absent on servers that only answer client_credentials.
   */
  mint?(grant: UserGrantType, count: number): Promise<string[]>;
  close(): Promise<void>;
}
