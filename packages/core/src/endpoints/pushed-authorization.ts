import { type Found, runChecks } from '../authorization/checks/check.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import { keepPushedRequest } from '../authorization/pushed-requests.js';
import { requestObjectParams } from '../authorization/request-object-params.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import type { EndpointHandler } from '../context.js';
import { withDpopNonce } from '../dpop/nonce-header.js';
import { boundToProofKey, pushedRequestKey } from '../dpop/pushed-request.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Pushed authorization request endpoint (RFC 9126): the client authenticates as at the token
 * endpoint, its request passes the par row of the checks table, and it gets a one-time
 * `request_uri` to send the browser with, for 60 seconds. A DPoP proof sent with it binds the
 * code as `dpop_jkt` does (RFC 9449 §10.1). Errors are JSON, never redirected.
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
    // Before the request object: a client asked for a nonce sends the same object again.
    const jkt = await pushedRequestKey(request, context);
    // RFC 9126 §3: a signed request object may be pushed; its parameters are the request.
    const params = boundToProofKey(await requestObjectParams(sent, context, client), jkt);
    const found: Found = { clientId: client.id };
    await runChecks(AUTHORIZATION_CHECKS.par, { params, context, client, found });
    const pushed = await keepPushedRequest(context, client.id, params);
    return noStoreJson(201, { request_uri: pushed.requestUri, expires_in: pushed.expiresIn });
  },
);
