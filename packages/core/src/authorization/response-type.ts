import { RESPONSE_TYPES } from '../config/client.js';
import type { ResponseMode, ResponseType } from './request.js';

/** Response types by their sorted parts, so `id_token code` is read as `code id_token`. */
const CANONICAL = new Map<string, ResponseType>(
  RESPONSE_TYPES.map((type) => [canonicalKey(type), type]),
);

function canonicalKey(value: string): string {
  return value.split(' ').sort().join(' ');
}

/** The response type in its registered spelling, or undefined for anything else. */
export function parseResponseType(value: string): ResponseType | undefined {
  return CANONICAL.get(canonicalKey(value));
}

/** Responses that carry a token (access token or ID token) in the redirect. */
export function carriesTokens(type: ResponseType): boolean {
  return type.includes('token');
}

export const includesCode = (type: ResponseType) => type.split(' ').includes('code');
export const includesAccessToken = (type: ResponseType) => type.split(' ').includes('token');
export const includesIdToken = (type: ResponseType) => type.split(' ').includes('id_token');

/**
 * OAuth 2.0 Multiple Response Type Encoding Practices §5: `query` for `code` and `none`, `fragment`
 * for anything that carries a token — which must never travel in a query string.
 */
export function defaultResponseMode(type: ResponseType | undefined): ResponseMode {
  return type !== undefined && carriesTokens(type) ? 'fragment' : 'query';
}
