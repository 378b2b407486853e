import { findClient } from '../client-metadata/find-client.js';
import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import type { Client } from '../realms/realm.js';
import { shownAtProvider } from './authorization-error.js';
import { verifyRequestObject } from './request-object.js';

/**
 * RFC 9101 §5 and §6.3: a request with a `request` object is the object's parameters alone;
 * client_id outside must name the client that signed it, and a response_type outside (which
 * OpenID Connect clients send) must agree with the one inside. Requests without one, and every
 * request of a realm that takes no request objects, pass unchanged (the checks then refuse the
 * parameter with request_not_supported).
 */
export async function requestObjectParams(
  params: Params,
  context: RealmContext,
  authenticated?: Client,
): Promise<Params> {
  const object = params.get('request');
  const algorithms = context.realm.config.request_object_signing_alg_values_supported;
  if (object === undefined || algorithms.length === 0) return params;
  if (params.repeated.has('request') || params.repeated.has('client_id')) {
    throw shownAtProvider('invalid_request', 'client_id or request is repeated');
  }
  if (params.has('request_uri')) {
    throw shownAtProvider('invalid_request', 'request and request_uri cannot be used together');
  }
  const clientId = params.get('client_id');
  const client =
    authenticated ?? (clientId === undefined ? undefined : await findClient(context, clientId));
  if (!client)
    throw shownAtProvider('invalid_client_id', 'client_id is not a client of this realm');
  const inner = await verifyRequestObject(context, client, object);
  const outsideType = params.get('response_type');
  if (outsideType !== undefined && outsideType !== inner.get('response_type')) {
    throw new OAuthError(
      'invalid_request_object',
      'response_type outside the request object differs from the one inside',
    );
  }
  return inner;
}
