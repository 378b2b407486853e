import { jsonResponse, NO_STORE_HEADERS } from '../http/responses.js';
import type { GatehouseResponse } from '../http/types.js';
import { type ErrorDialect, wireCode } from './codes.js';
import { OAuthError, payloadTooLarge, StoreUnavailableError } from './oauth-error.js';

/**
 * Turns any thrown value into a response, its code spelled in `dialect`. Only `OAuthError`s
 * speak for themselves; everything else is reported to `onError` and answered with a fixed
 * description, so no stack trace, secret or internal message reaches the client.
 */
export function errorToResponse(
  error: unknown,
  onError: (error: unknown) => void,
  dialect: ErrorDialect = 'interface',
): GatehouseResponse {
  if (error instanceof OAuthError) {
    if (error.reportCause) reportSafely(onError, error.cause);
    return serialise(error, dialect);
  }
  reportSafely(onError, error);
  return serialise(
    error instanceof StoreUnavailableError
      ? new OAuthError('temporarily_unavailable', 'the service is temporarily unavailable', {
          headers: { 'retry-after': '1' },
        })
      : new OAuthError('server_error', 'an unexpected error occurred'),
    dialect,
  );
}

function serialise(error: OAuthError, dialect: ErrorDialect): GatehouseResponse {
  const body: Record<string, string> = { error: wireCode(error.code, dialect) };
  if (error.description) body.error_description = error.description;
  const response = jsonResponse(error.status, body, { ...NO_STORE_HEADERS, ...error.headers });
  return { ...response, errorCode: error.code };
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
