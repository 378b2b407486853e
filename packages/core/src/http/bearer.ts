import type { ErrorCode } from '../errors/codes.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { GatehouseRequest } from './types.js';

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, then a b64token. */
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^bearer(?: |$)/i;

/**
 * The bearer token of the `Authorization` header, or undefined when the request carries none
 * (no header, or another scheme: RFC 6750 §3.1 treats both as "no authentication information").
 * A `Bearer` header that is malformed is an `invalid_request`.
 */
export function bearerToken(request: GatehouseRequest, issuer: string): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !BEARER_SCHEME.test(header)) return undefined;
  const token = BEARER_CREDENTIALS.exec(header)?.[1];
  if (token === undefined) {
    throw bearerError(issuer, 'invalid_request', 'the Authorization header is not a valid Bearer');
  }
  return token;
}

export type BearerErrorCode = Extract<
  ErrorCode,
  'invalid_request' | 'invalid_token' | 'insufficient_scope'
>;

/**
 * The `WWW-Authenticate` challenge of RFC 6750 §3. Without `error` it is the bare challenge for a
 * request that carried no credentials.
 */
export function bearerChallenge(
  issuer: string,
  error?: { code: BearerErrorCode; description: string; scope?: string },
): string {
  let challenge = `Bearer realm=${quoted(issuer)}`;
  if (error) {
    challenge += `, error=${quoted(error.code)}, error_description=${quoted(error.description)}`;
    if (error.scope !== undefined) challenge += `, scope=${quoted(error.scope)}`;
  }
  return challenge;
}

/** An error of RFC 6750 §3.1 with its status and challenge. */
export function bearerError(
  issuer: string,
  code: BearerErrorCode,
  description: string,
  options: { scope?: string } = {},
): OAuthError {
  const challenge = bearerChallenge(issuer, {
    code,
    description,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  });
  return new OAuthError(code, description, {
    headers: { 'www-authenticate': challenge },
  });
}

/**
 * An RFC 9110 quoted-string. Values outside the characters RFC 6749 allows in `error_description`
 * (printable ASCII) are replaced, so nothing can break out of the header.
 */
export function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
}
