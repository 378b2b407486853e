/**
 * The errors a protected resource answers with (RFC 6750 §3.1, RFC 9449 §7.1), and the two it
 * does not owe to the token: the authorization server could not be reached, or the kit failed.
 */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_dpop_proof';

const STATUS: Readonly<Record<TokenErrorCode, number>> = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_dpop_proof: 401,
};

/**
 * A request refused because of what it presented. `description` goes to the client in the
 * challenge, so it is a fixed sentence that never quotes the request; `cause` is for operators.
 */
export class TokenError extends Error {
  override name = 'TokenError';
  readonly status: number;

  constructor(
    readonly code: TokenErrorCode,
    readonly description: string,
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${description}`, options);
    this.status = STATUS[code];
  }
}

/**
 * The authorization server's keys, metadata or introspection endpoint could not be used: the
 * request is answered 503, and the error goes to the `onError` hook.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
}
