import { jsonResponse, NO_STORE_HEADERS } from '../http/responses.js';
import type { GatehouseResponse } from '../http/types.js';
import { OAuthError, payloadTooLarge, StoreUnavailableError } from './oauth-error.js';

/**
 * Turns any thrown value into a response. Only `OAuthError`s speak for themselves; everything
 * else is reported to `onError` and answered with a fixed description, so no stack trace,
 * secret or internal message reaches the client.
 */
export function errorToResponse(
  error: unknown,
  onError: (error: unknown) => void,
): GatehouseResponse {
  if (error instanceof OAuthError) {
    if (error.reportCause) reportSafely(onError, error.cause);
    const body: Record<string, string> = { error: error.code };
    if (error.description) body.error_description = error.description;
    return jsonResponse(error.status, body, { ...NO_STORE_HEADERS, ...error.headers });
  }
  reportSafely(onError, error);
  if (error instanceof StoreUnavailableError) {
    return jsonResponse(
      503,
      {
        error: 'temporarily_unavailable',
        error_description: 'the service is temporarily unavailable',
      },
      { ...NO_STORE_HEADERS, 'retry-after': '1' },
    );
  }
  return jsonResponse(
    500,
    { error: 'server_error', error_description: 'an unexpected error occurred' },
    { ...NO_STORE_HEADERS },
  );
}

function reportSafely(onError: (error: unknown) => void, error: unknown): void {
  try {
    onError(error);
  } catch {
    // A failing error hook must not turn an answer into an unhandled rejection.
  }
}

/** The wire form of an OAuth error, for adapters that must answer before the provider runs. */
export function oauthErrorResponse(error: OAuthError): GatehouseResponse {
  return errorToResponse(error, () => {});
}

/** The answer to a body over the size limit, identical to what the provider itself answers. */
export function payloadTooLargeResponse(): GatehouseResponse {
  return oauthErrorResponse(payloadTooLarge());
}
