import { findClient } from '../client-metadata/find-client.js';
import { isFapi2 } from '../config/fapi2.js';
import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { Params } from '../http/form.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import { touchRegisteredClient } from '../registration/registered-clients.js';
import { clientAuthenticationFailed } from './failure.js';
import { CLIENT_AUTH_REGISTRY } from './methods/registry.js';
import { presentedCredentials } from './presented.js';

/**
 * FAPI 2.0 SP §5.3.2.1-6: a fapi2 realm authenticates clients with private_key_jwt only, whatever
 * a client described by a metadata document or a registration says of itself.
 */
function acceptedMethod(client: Client, context: RealmContext): boolean {
  return (
    !isFapi2(context.realm.config) || client.config.token_endpoint_auth_method === 'private_key_jwt'
  );
}

/**
 * Authenticates the calling client of this realm (configured, or described by its metadata
 * document, whose failure is its own `invalid_client`) with its one registered method, shared by the
 * token, introspection, revocation and CIBA endpoints. The URL of `endpoint` (its path below the
 * realm) is an accepted assertion audience beside the issuer.
 */
export async function authenticateClient(
  request: GatehouseRequest,
  params: Params,
  context: RealmContext,
  endpoint: string,
): Promise<Client> {
  const presented = presentedCredentials(request, params);
  const client = await findClient(context, presented.clientId);
  const registered =
    client && acceptedMethod(client, context)
      ? CLIENT_AUTH_REGISTRY.get(client.config.token_endpoint_auth_method)
      : undefined;
  // An unknown client still goes through a verifier of the presented kind, so it costs the same.
  const entry =
    registered ?? [...CLIENT_AUTH_REGISTRY.values()].find((e) => e.presentedAs === presented.kind);
  const verified =
    entry !== undefined &&
    entry.presentedAs === presented.kind &&
    (await entry.verify(
      registered ? client : undefined,
      presented,
      context,
      context.realm.url(endpoint),
    ));
  if (!verified || !client) {
    emitEvent(context, {
      type: 'client_authentication_failed',
      ...(client ? { clientId: client.id } : {}),
      presentedAs: presented.kind,
      endpoint,
    });
    throw clientAuthenticationFailed(presented.kind);
  }
  // A registered client that asks for tokens is in use: it is not removed as unused.
  if (client.source === 'registration' && endpoint === 'token') {
    await touchRegisteredClient(context, client);
  }
  return client;
}
