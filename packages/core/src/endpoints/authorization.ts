import { answerAuthorization } from '../authorization/answer.js';
import { redirected, shownAtProvider } from '../authorization/authorization-error.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { trustedTarget, validateRequest } from '../authorization/validate-request.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { type Params, parseUrlEncoded } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import { loadSession } from '../sessions/session.js';
import { verifyIdTokenHint } from '../tokens/id-token-hint.js';

/**
 * Authorization endpoint (docs/interface.md §4.1, OIDC Core 1.0 §3.1.2): GET with the query string,
 * or POST with a form. Until client_id and redirect_uri are trusted, errors are shown here
 * (docs/interface.md §7.1); after that they go back to the client (§7.2). A valid request continues
 * with the browser's session.
 */
export const authorizationEndpoint: EndpointHandler = async (request, context) =>
  answerAuthorization(context, undefined, { method: request.method }, async () => {
    const params = authorizationParams(request, context.maxBodyBytes);
    const trusted = await trustedTarget(params, context);
    return answerAuthorization(context, trusted.target, { method: request.method }, async () => {
      const authorization = validateRequest(params, context.realm, trusted);
      const hinted = await hintedUser(params, context, trusted.client);
      if (hinted !== undefined) {
        authorization.expectedSub = hinted;
        authorization.hintedSub = hinted;
      }
      const session = await loadSession(request, context);
      return continueAuthorization(context, authorization, {
        session,
        loggedInNow: false,
        cookies: [],
        method: request.method,
        cookieHeader: request.headers.cookie,
      });
    });
  });

/**
 * The user an id_token_hint names (OIDC Core 1.0 §3.1.2.1): an ID token this realm issued to this
 * client, expired or not. Only that user may then be signed in; any other hint is refused.
 */
async function hintedUser(
  params: Params,
  context: RealmContext,
  client: Client,
): Promise<string | undefined> {
  const hint = params.get('id_token_hint');
  if (hint === undefined) return undefined;
  const verified = await verifyIdTokenHint(context, hint);
  if (!verified?.audience.includes(client.id)) {
    throw redirected('invalid_request', 'id_token_hint is not an ID token issued to this client');
  }
  return verified.sub;
}

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
