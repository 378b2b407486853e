import { OAuthError, payloadTooLarge } from '../errors/oauth-error.js';
import {
  decodeUtf8,
  type Params,
  type ParseOptions,
  paramsFromPairs,
  parseUrlEncoded,
} from './form.js';
import { parseContentType } from './media-type.js';
import type { GatehouseRequest } from './types.js';

const encoder = new TextEncoder();

/** Names that carry a credential or a token and so must never travel in a URL. */
const CREDENTIAL_PARAMETERS = [
  'client_secret',
  'client_assertion',
  'token',
  'code',
  'code_verifier',
  'refresh_token',
  'auth_req_id',
  'password',
];

/**
 * Reads the form body of a POST endpoint (RFC 6749 §3.2): the content type must be
 * `application/x-www-form-urlencoded`, the body within the size limit, and credentials must not
 * also appear in the query string.
 */
export function readForm(
  request: GatehouseRequest,
  maxBodyBytes: number,
  options: ParseOptions = {},
): Params {
  rejectCredentialsInQuery(request.query);
  const { type, charset } = parseContentType(request.headers['content-type']);
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(
      'invalid_request',
      'the request body must be application/x-www-form-urlencoded',
    );
  }
  if (charset !== undefined && charset !== 'utf-8') {
    throw new OAuthError('invalid_request', 'the request body must be encoded in UTF-8');
  }
  if (request.form) return paramsFromPairs(request.form, options);
  const body = request.body ?? '';
  const size = typeof body === 'string' ? encoder.encode(body).length : body.length;
  if (size > maxBodyBytes) throw payloadTooLarge();
  return parseUrlEncoded(typeof body === 'string' ? body : decodeUtf8(body), options);
}

function rejectCredentialsInQuery(query: string): void {
  if (query === '') return;
  const params = parseUrlEncoded(query);
  const leaked = CREDENTIAL_PARAMETERS.find((name) => params.has(name));
  if (leaked)
    throw new OAuthError(
      'invalid_request',
      `${leaked} must be sent in the request body, not the URL`,
    );
}
