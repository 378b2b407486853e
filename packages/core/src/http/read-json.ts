import { OAuthError, payloadTooLarge } from '../errors/oauth-error.js';
import { decodeUtf8 } from './form.js';
import { isJson } from './media-type.js';
import type { GatehouseRequest } from './types.js';

const encoder = new TextEncoder();
/** Far beyond what client metadata needs (a JWK is 3 levels down), far below any stack limit. */
const MAX_DEPTH = 16;

/**
 * The JSON body of a request (RFC 7591 §3.1: `application/json`), within the size limit and
 * nesting at most a few levels; a body that is none of that fails with `code`.
 */
export function readJson(
  request: GatehouseRequest,
  maxBodyBytes: number,
  code: 'invalid_request' | 'invalid_client_metadata',
): unknown {
  if (!isJson(request.headers['content-type'])) {
    throw new OAuthError(code, 'the request body must be application/json');
  }
  const body = request.body ?? '';
  const size = typeof body === 'string' ? encoder.encode(body).length : body.length;
  if (size > maxBodyBytes) throw payloadTooLarge();
  let value: unknown;
  try {
    value = JSON.parse(typeof body === 'string' ? body : decodeUtf8(body));
  } catch {
    throw new OAuthError(code, 'the request body is not JSON');
  }
  if (nestsDeeperThan(value, MAX_DEPTH)) {
    throw new OAuthError(code, `the request body nests more than ${MAX_DEPTH} levels deep`);
  }
  return value;
}

/** Measured without recursion, so no body can exhaust the stack. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= max) return true;
    for (const child of Object.values(next.value))
      pending.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}
