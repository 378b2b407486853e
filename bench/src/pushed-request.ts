import {
  BENCH_AUTHORIZATION_REQUEST,
  BENCH_WEB_CLIENT_SECRET,
  postForm,
  type TokenEndpoint,
} from './token-request.js';

/** The web client pushes its authorization request (RFC 9126) with client_secret_post. */
export const PUSHED_REQUEST_BODY = new URLSearchParams({
  ...BENCH_AUTHORIZATION_REQUEST,
  client_secret: BENCH_WEB_CLIENT_SECRET,
}).toString();

/**
 * Pushes the request once and fails unless it got a 201 with a `request_uri` of RFC 9126's form
 * and an `expires_in`: run before measuring, so a benchmark of refusals cannot happen.
 */
export async function checkPushedRequest(endpoint: TokenEndpoint): Promise<void> {
  if (endpoint.parPath === undefined) throw new Error('the server has no PAR endpoint');
  const { status, text } = await postForm(endpoint.baseUrl + endpoint.parPath, PUSHED_REQUEST_BODY);
  const answer = status === 201 ? (JSON.parse(text) as Record<string, unknown>) : {};
  const requestUri = answer.request_uri;
  if (
    typeof requestUri !== 'string' ||
    !requestUri.startsWith('urn:ietf:params:oauth:request_uri:') ||
    typeof answer.expires_in !== 'number'
  ) {
    throw new Error(`a pushed authorization request answered ${status}: ${text.slice(0, 300)}`);
  }
}
