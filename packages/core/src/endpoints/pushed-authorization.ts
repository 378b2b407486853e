import { type Found, runChecks } from '../authorization/checks/check.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import { keepPushedRequest } from '../authorization/pushed-requests.js';
import { requestObjectParams } from '../authorization/request-object-params.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import type { EndpointHandler } from '../context.js';
import { withDpopNonce } from '../dpop/nonce-header.js';
import { withPushedProofKey } from '../dpop/pushed-request.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Pushed authorization request endpoint (RFC 9126): the client authenticates as at the token
 * endpoint, its request passes the par row of the checks table, and it gets a one-time
 * `request_uri` to send the browser with, for 60 seconds. Errors are JSON, never redirected. A
 * DPoP proof sent along binds the code to its key (RFC 9449 §10.1).
 */
export const pushedAuthorizationEndpoint: EndpointHandler = withDpopNonce(
  async (request, context) => {
    const sent = readForm(request, context.maxBodyBytes);
    const client = await authenticateClient(
      request,
      sent,
      context,
      ENDPOINT_PATHS.pushedAuthorization,
    );
    // RFC 9126 §3: a signed request object may be pushed; its parameters are the request.
    const params = await withPushedProofKey(
      request,
      await requestObjectParams(sent, context, client),
      context,
    );
    const found: Found = { clientId: client.id };
    await runChecks(AUTHORIZATION_CHECKS.par, { params, context, client, found });
    const pushed = await keepPushedRequest(context, client.id, params);
    return noStoreJson(201, { request_uri: pushed.requestUri, expires_in: pushed.expiresIn });
  },
);
