import {
  BENCH_WEB_CLIENT_ID,
  BENCH_WEB_CLIENT_SECRET,
  postForm,
  type TokenEndpoint,
} from './token-request.js';

export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';
/** Seconds a CIBA request waits for the user, on both servers (ours' default `expires_in`). */
export const BENCH_CIBA_EXPIRES_IN = 120;
/**
 * Ours' default poll interval; oidc-provider sends none (CIBA Core 1.0 §7.3: the client then uses
 * 5).
 */
export const BENCH_CIBA_INTERVAL = 5;
/**
 * How many ID tokens of the bench user are minted to name them in CIBA requests; the requests
 * take them in turn. A hint may be used any number of times.
 */
export const CIBA_HINTS = 16;

/**
 * The CIBA initiation of the web client with client_secret_post: `openid` for the user the ID
 * token names, nothing else (no binding message, no requested expiry).
 */
export function cibaRequestBody(idTokenHint: string): string {
  return new URLSearchParams({
    scope: 'openid',
    id_token_hint: idTokenHint,
    client_id: BENCH_WEB_CLIENT_ID,
    client_secret: BENCH_WEB_CLIENT_SECRET,
  }).toString();
}

export interface CheckedInitiation {
  readonly authReqId: string;
  readonly expiresIn: number;
  /** Undefined when the server sends none. */
  readonly interval: number | undefined;
}

/**
 * Sends one CIBA initiation and fails unless it got a 200 with an `auth_req_id` of at least 128
 * bits, the expected `expires_in`, and an `interval` that is absent or a positive integer; then
 * polls the token endpoint once with that `auth_req_id` and fails unless the server knows the
 * request (`authorization_pending`, or `slow_down` where a poll this early cancels it). Run
 * before measuring, so a benchmark of refusals cannot happen.
 */
export async function checkCibaInitiation(
  endpoint: TokenEndpoint,
  idTokenHint: string,
): Promise<CheckedInitiation> {
  if (endpoint.backchannelPath === undefined) throw new Error('the server has no CIBA endpoint');
  const { status, text } = await postForm(
    endpoint.baseUrl + endpoint.backchannelPath,
    cibaRequestBody(idTokenHint),
  );
  if (status !== 200) throw new Error(`CIBA initiation answered ${status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as Record<string, unknown>;
  const { auth_req_id: authReqId, expires_in: expiresIn, interval } = answer;
  // 128 bits are at least 22 base64url characters.
  if (typeof authReqId !== 'string' || !/^[\w-]{22,}$/.test(authReqId)) {
    throw new Error(`CIBA answer has no auth_req_id of 128 bits or more: ${text.slice(0, 300)}`);
  }
  if (expiresIn !== BENCH_CIBA_EXPIRES_IN) {
    throw new Error(
      `CIBA answer has expires_in ${String(expiresIn)}, not ${BENCH_CIBA_EXPIRES_IN}`,
    );
  }
  if (interval !== undefined && !(Number.isInteger(interval) && (interval as number) > 0)) {
    throw new Error(`CIBA answer has interval ${String(interval)}, not a positive integer`);
  }

  const poll = await postForm(
    endpoint.baseUrl + endpoint.tokenPath,
    new URLSearchParams({
      grant_type: CIBA_GRANT_TYPE,
      auth_req_id: authReqId,
      client_id: BENCH_WEB_CLIENT_ID,
      client_secret: BENCH_WEB_CLIENT_SECRET,
    }).toString(),
  );
  const error = poll.status === 400 ? JSON.parse(poll.text).error : undefined;
  if (error !== 'authorization_pending' && error !== 'slow_down') {
    throw new Error(
      `a poll of the new auth_req_id answered ${poll.status}, not authorization_pending or ` +
        `slow_down: ${poll.text.slice(0, 300)}`,
    );
  }
  return { authReqId, expiresIn, interval: interval as number | undefined };
}
