// autocannon ships no type declarations; this covers the options and result fields the bench reads.
declare module 'autocannon' {
  /** One request as autocannon builds it; `setupRequest` may change it before each send. */
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Requests to send in all; overrides `duration`. */
    amount?: number;
    pipelining?: number;
    /** Sent in turn by every connection; `setupRequest` runs before each send of its request. */
    requests?: Array<Request & { setupRequest?(request: Request): Request }>;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }
  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    /** Seconds the run actually lasted. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    '3xx': number;
  }
  /** A running benchmark: awaitable for its result, stoppable early. */
  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
