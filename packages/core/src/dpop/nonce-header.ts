import type { EndpointHandler } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';

/**
 * An endpoint that accepts proofs, whose every answer (errors included) carries a fresh
 * `DPoP-Nonce` when its realm requires nonces (RFC 9449 §8.2, §9), so a client always has the
 * newest one for its next proof.
 */
export function withDpopNonce(handler: EndpointHandler): EndpointHandler {
  return async (request, context) => {
    if (!context.realm.config.dpop.require_nonce) return handler(request, context);
    const nonce = await context.dpopNonces.current(context.realm.name);
    try {
      const response = await handler(request, context);
      return { ...response, headers: { ...response.headers, 'dpop-nonce': nonce } };
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      throw new OAuthError(error.code, error.description, {
        status: error.status,
        headers: { ...error.headers, 'dpop-nonce': nonce },
        redirectable: error.redirectable,
        cause: error.cause,
        reportCause: error.reportCause,
      });
    }
  };
}
