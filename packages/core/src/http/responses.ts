import type { GatehouseResponse } from './types.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Headers RFC 6749 §5.1 requires on every response that may carry credentials. */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  pragma: 'no-cache',
});

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): GatehouseResponse {
  return {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: JSON.stringify(body),
  };
}

export function noStoreJson(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): GatehouseResponse {
  return jsonResponse(status, body, { ...NO_STORE_HEADERS, ...headers });
}

export function emptyResponse(
  status: number,
  headers: Record<string, string> = {},
): GatehouseResponse {
  return { status, headers };
}
