import { answerAuthorization } from '../authorization/answer.js';
import { shownAtProvider } from '../authorization/authorization-error.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { resolvePushedRequest } from '../authorization/pushed-requests.js';
import { requestObjectParams } from '../authorization/request-object-params.js';
import { trustedTarget } from '../authorization/trusted-target.js';
import { validateRequest } from '../authorization/validate-request.js';
import type { EndpointHandler } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { type Params, parseUrlEncoded } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import type { GatehouseRequest } from '../http/types.js';
import { loadSession } from '../sessions/session.js';

/**
 * Authorization endpoint (docs/interface.md §4.1, OIDC Core 1.0 §3.1.2): GET with the query string,
 * or POST with a form. Until client_id and redirect_uri are trusted, errors are shown here
 * (docs/interface.md §7.1); after that they go back to the client (§7.2). A valid request continues
 * with the browser's session.
 */
export const authorizationEndpoint: EndpointHandler = async (request, context) =>
  answerAuthorization(context, undefined, { method: request.method }, async () => {
    const sent = authorizationParams(request, context.maxBodyBytes);
    const { params, pushed } = await resolvePushedRequest(
      await requestObjectParams(sent, context),
      context,
    );
    const trusted = await trustedTarget(params, context);
    return answerAuthorization(context, trusted.target, { method: request.method }, async () => {
      const authorization = await validateRequest(
        params,
        context,
        trusted,
        AUTHORIZATION_CHECKS.authorization,
        pushed,
      );
      const session = await loadSession(request, context);
      return continueAuthorization(context, authorization, {
        session,
        loggedInNow: false,
        cookies: [],
        method: request.method,
        cookieHeader: request.headers.cookie,
        client: trusted.client,
      });
    });
  });

/**
 * A request that cannot be parsed (bad encoding, too many parameters) cannot be trusted with a
 * redirect. Repeated parameters are kept for `trustedTarget` to judge: when client_id and
 * redirect_uri are not among them, the error goes back to the client.
 */
function authorizationParams(request: GatehouseRequest, maxBodyBytes: number): Params {
  const options = { recordRepeats: true };
  try {
    return request.method === 'POST'
      ? readForm(request, maxBodyBytes, options)
      : parseUrlEncoded(request.query, options);
  } catch (error) {
    if (error instanceof OAuthError && error.status === 400) {
      throw shownAtProvider('invalid_request', error.description ?? 'malformed request');
    }
    throw error;
  }
}
