import { authenticateClient } from '../client-auth/authenticate.js';
import type { EndpointHandler } from '../context.js';
import { withDpopNonce } from '../dpop/nonce-header.js';
import { tokenRequestKey } from '../dpop/token-request.js';
import { OAuthError } from '../errors/oauth-error.js';
import { GRANT_TYPE_REGISTRY } from '../grant-types/registry.js';
import { withClientCors } from '../http/cors.js';
import { readForm } from '../http/read-form.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Token endpoint (RFC 6749 §3.2): parse the form, check the grant type exists, authenticate the
 * client, check the client may use the grant, check its DPoP proof if any (RFC 9449 §5), then run
 * the grant. A script may read the answer from the client's own origins (CORS).
 */
export const tokenEndpoint: EndpointHandler = withDpopNonce(async (request, context) => {
  const params = readForm(request, context.maxBodyBytes);
  const grantType = params.get('grant_type');
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  const grant = GRANT_TYPE_REGISTRY.get(grantType);
  if (!grant) throw new OAuthError('unsupported_grant_type', 'this grant_type is not supported');
  const client = await authenticateClient(request, params, context, ENDPOINT_PATHS.token);
  if (!client.grantTypes.has(grantType))
    throw new OAuthError('unauthorized_client', 'this client may not use this grant_type');
  const dpopJkt = await tokenRequestKey(request, client, context);
  return withClientCors(await grant(params, client, context, dpopJkt), request, client);
});
