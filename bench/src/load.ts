import autocannon from 'autocannon';
import { TOKEN_REQUEST_BODY, TOKEN_REQUEST_HEADERS, type TokenEndpoint } from './token-request.js';

export interface LoadSettings {
  readonly connections: number;
  /** Seconds. */
  readonly duration: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  /** Non-2xx answers, socket errors and timeouts: any of them makes the run invalid. */
  readonly failures: number;
}

/** Sends the token request as fast as `connections` keep-alive connections allow for `duration`. */
export async function applyLoad(
  endpoint: TokenEndpoint,
  settings: LoadSettings,
): Promise<LoadResult> {
  const result = await autocannon({
    url: endpoint.baseUrl + endpoint.tokenPath,
    method: 'POST',
    headers: TOKEN_REQUEST_HEADERS,
    body: TOKEN_REQUEST_BODY,
    connections: settings.connections,
    duration: settings.duration,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
