/// <reference path="./autocannon.d.ts" />
import autocannon, { type Instance, type Result } from 'autocannon';
import { TOKEN_REQUEST_HEADERS } from './token-request.js';

export interface LoadSettings {
  readonly connections: number;
  /** Seconds. */
  readonly duration: number;
}

/**
 * A request sent once: its body, with headers beside the form's content type (a DPoP proof) and
 * a path other than the run's (a pushed request between code exchanges) where it has them.
 */
export interface OneTimeRequest {
  readonly body: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  readonly path?: string;
}

/**
 * What each request sends, built before the load so the load generator only picks the next: one
 * fixed body; a pool of requests of which each is sent once (one per one-time credential or
 * DPoP proof); a few bodies sent in turn (reusable credentials, such as the ID tokens naming
 * CIBA's user); or one body sent to several paths in turn (the same client in many realms).
 */
export type RequestBodies =
  | { readonly kind: 'fixed'; readonly body: string }
  | { readonly kind: 'one-time'; readonly pool: readonly OneTimeRequest[] }
  | { readonly kind: 'in-turn'; readonly bodies: readonly Buffer[] }
  | { readonly kind: 'spread'; readonly body: string; readonly paths: readonly string[] };

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  /** Non-2xx answers, socket errors and timeouts: any of them makes the run invalid. */
  readonly failures: number;
}

/** A pool of one-time requests ran out before the run ended: the results would be errors. */
export class PoolExhaustedError extends Error {
  override name = 'PoolExhaustedError';
}

/**
 * POSTs urlencoded forms to `url` (or to its origin's `paths`) as fast as `connections` keep-alive connections allow for
 * `duration`. With a pool of one-time bodies, every request takes the next one; if the pool runs
 * dry the run is stopped and rejected with PoolExhaustedError rather than measuring the errors
 * that would follow.
 */
export async function applyLoad(
  url: string,
  settings: LoadSettings,
  bodies: RequestBodies,
): Promise<LoadResult> {
  const options = {
    url,
    method: 'POST',
    headers: TOKEN_REQUEST_HEADERS,
    connections: settings.connections,
    duration: settings.duration,
  };
  let result: Result;
  if (bodies.kind === 'fixed') {
    result = await autocannon({ ...options, body: bodies.body });
  } else if (bodies.kind === 'in-turn') {
    const { bodies: inTurn } = bodies;
    if (inTurn.length === 0) throw new Error('no request bodies to send in turn');
    let next = 0;
    result = await autocannon({
      ...options,
      requests: [
        {
          setupRequest(request) {
            request.body = inTurn[next++ % inTurn.length];
            return request;
          },
        },
      ],
    });
  } else if (bodies.kind === 'spread') {
    const { body, paths } = bodies;
    if (paths.length === 0) throw new Error('no paths to spread the requests over');
    let next = 0;
    result = await autocannon({
      ...options,
      body,
      requests: [
        {
          setupRequest(request) {
            request.path = paths[next++ % paths.length];
            return request;
          },
        },
      ],
    });
  } else {
    const { pool } = bodies;
    let next = 0;
    let dry = false;
    // Assigned once autocannon returns; its connections already ask for bodies before that.
    let run: Instance | undefined;
    run = autocannon({
      ...options,
      requests: [
        {
          setupRequest(request) {
            const taken = pool[next++];
            if (taken === undefined) {
              // Autocannon only stops at its next one-second tick: until then, requests get a
              // body no server accepts, and the run is rejected below.
              dry = true;
              run?.stop();
            }
            const { body, headers, path } = taken ?? EXHAUSTED;
            return {
              ...request,
              body,
              headers: { ...TOKEN_REQUEST_HEADERS, ...headers },
              ...(path === undefined ? {} : { path }),
            };
          },
        },
      ],
    });
    if (dry) run.stop();
    result = await run;
    if (dry) {
      throw new PoolExhaustedError(
        `the pool of ${pool.length} one-time requests ran dry before the ${settings.duration} s ` +
          'run ended; set BENCH_POOL_RATE above the rate the server reaches',
      );
    }
  }
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

const EXHAUSTED: OneTimeRequest = { body: Buffer.from('grant_type=pool_exhausted') };
