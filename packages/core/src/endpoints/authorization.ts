import { answerAuthorization } from '../authorization/answer.js';
import { shownAtProvider } from '../authorization/authorization-error.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { trustedTarget, validateRequest } from '../authorization/validate-request.js';
import type { EndpointHandler } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { type Params, parseUrlEncoded } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import type { GatehouseRequest } from '../http/types.js';
import { loadSession } from '../sessions/session.js';

/**
 * Authorization endpoint (interface §4.1, OIDC Core §3.1.2): GET with the query string, or POST
 * with a form. Until client_id and redirect_uri are trusted, errors are shown here (§7.1); after
 * that they go back to the client (§7.2). A valid request continues with the browser's session.
 */
export const authorizationEndpoint: EndpointHandler = async (request, context) =>
  answerAuthorization(context, undefined, { method: request.method }, async () => {
    const params = authorizationParams(request, context.maxBodyBytes);
    const trusted = trustedTarget(params, context.realm);
    return answerAuthorization(context, trusted.target, { method: request.method }, async () => {
      const authorization = validateRequest(params, context.realm, trusted);
      const session = await loadSession(request, context);
      return continueAuthorization(context, authorization, {
        session: session?.record,
        loggedInNow: false,
        cookies: [],
        method: request.method,
        cookieHeader: request.headers.cookie,
      });
    });
  });

/** A malformed request (repeated parameters, bad encoding) cannot be trusted with a redirect. */
function authorizationParams(request: GatehouseRequest, maxBodyBytes: number): Params {
  try {
    return request.method === 'POST'
      ? readForm(request, maxBodyBytes)
      : parseUrlEncoded(request.query);
  } catch (error) {
    if (error instanceof OAuthError && error.status === 400) {
      throw shownAtProvider('invalid_request', error.description ?? 'malformed request');
    }
    throw error;
  }
}
