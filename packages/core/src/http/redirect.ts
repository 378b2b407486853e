import type { GatehouseResponse } from './types.js';

/**
 * `uri` exactly as registered — its own query kept byte for byte — with `query` (already
 * encoded) appended to its query string.
 */
export function appendQuery(uri: string, query: string): string {
  if (query === '') return uri;
  const separator = !uri.includes('?') ? '?' : /[?&]$/.test(uri) ? '' : '&';
  return `${uri}${separator}${query}`;
}

/**
 * A redirect that carries no credentials to a cache or a referrer. 303 after a POST, so the
 * browser never re-sends the form (a 307 would re-post a password).
 */
export function redirect(
  location: string,
  method: string,
  cookies?: readonly string[],
): GatehouseResponse {
  return {
    status: method === 'POST' ? 303 : 302,
    headers: {
      location,
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'referrer-policy': 'no-referrer',
    },
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
  };
}
