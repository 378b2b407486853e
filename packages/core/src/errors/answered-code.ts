import type { GatehouseResponse } from '../http/types.js';

/** The OAuth error code of each error answer, for the instrumentation, without a wire field. */
const answeredCodes = new WeakMap<GatehouseResponse, string>();

/** Marks `response` as the answer carrying the error `code`, and returns it. */
export function answeringError(response: GatehouseResponse, code: string): GatehouseResponse {
  answeredCodes.set(response, code);
  return response;
}

/** The error code `response` carries, if it is an error answer. */
export const answeredErrorCode = (response: GatehouseResponse): string | undefined =>
  answeredCodes.get(response);
