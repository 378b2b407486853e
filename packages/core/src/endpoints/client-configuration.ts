import type { RegistrationConfig } from '../config/registration.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { digestMatches, tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { OAuthError } from '../errors/oauth-error.js';
import { emitEvent } from '../events/emit.js';
import { bearerError, bearerToken } from '../http/bearer.js';
import { withAnyOriginCors } from '../http/cors.js';
import { readJson } from '../http/read-json.js';
import { emptyResponse, noStoreJson } from '../http/responses.js';
import type { GatehouseRequest } from '../http/types.js';
import { registeredClientConfig, usesSecret } from '../registration/client-metadata.js';
import {
  type RegisteredClientRecord,
  registeredClientRecord,
  removeRegisteredClient,
  replaceRegisteredClient,
} from '../registration/registered-clients.js';
import { registrationAnswer } from '../registration/registration-answer.js';

/** Compared against when the client is unknown, so both paths do the same work. */
const UNKNOWN_CLIENT_DIGEST = tokenDigest('');

/**
 * The client configuration endpoint (RFC 7592) at `register/{client_id}`: with the registration
 * access token as a Bearer, GET reads the client, PUT replaces its metadata, DELETE removes it
 * and every token it holds. Any other token, or an unknown client, is 401 `invalid_token`.
 */
export const clientConfigurationEndpoint: EndpointHandler = async (request, context) => {
  const { realm } = context;
  const settings = realm.config.registration;
  if (!settings) throw new OAuthError('not_found', 'this realm does not register clients');
  const clientId = decodeURIComponent(request.path.slice(request.path.lastIndexOf('/') + 1));
  const token = bearerToken(request, realm.issuer);
  const record = await registeredClientRecord(context, clientId);
  const matches = digestMatches(
    token ?? '',
    record?.registration_token_digest ?? UNKNOWN_CLIENT_DIGEST,
  );
  if (token === undefined || !record || !matches) {
    throw bearerError(
      realm.issuer,
      'invalid_token',
      'the registration access token is not valid for this client',
    );
  }
  if (request.method === 'DELETE') {
    await removeRegisteredClient(context, clientId);
    return withAnyOriginCors(emptyResponse(204, { 'cache-control': 'no-store' }), request);
  }
  const answer =
    request.method === 'PUT'
      ? await update(request, context, settings, record, token)
      : registrationAnswer(context, record, { registrationAccessToken: token });
  return withAnyOriginCors(noStoreJson(200, answer), request);
};

/**
 * RFC 7592 §2.2: the body replaces every field (one left out returns to its default), names the
 * same client_id, and may carry the client's current secret but never choose one. The secret is
 * kept while the client keeps authenticating with one; a client that starts to is given one.
 */
async function update(
  request: GatehouseRequest,
  context: RealmContext,
  settings: RegistrationConfig,
  record: RegisteredClientRecord,
  registrationAccessToken: string,
): Promise<Record<string, unknown>> {
  const metadata = readJson(request, context.maxBodyBytes, 'invalid_client_metadata');
  const given = (typeof metadata === 'object' && metadata !== null ? metadata : {}) as Record<
    string,
    unknown
  >;
  const clientId = record.config.client_id;
  if (given.client_id !== clientId) {
    throw new OAuthError('invalid_client_metadata', "client_id must be the client's own");
  }
  const presentedSecret = given.client_secret;
  if (
    presentedSecret !== undefined &&
    (typeof presentedSecret !== 'string' ||
      record.secret_digest === undefined ||
      !digestMatches(presentedSecret, record.secret_digest))
  ) {
    throw new OAuthError(
      'invalid_client_metadata',
      'client_secret must be the current secret: a client never chooses its own',
    );
  }
  const newSecret = randomId();
  const config = registeredClientConfig(metadata, context.realm, settings, {
    clientId,
    clientSecret: newSecret,
  });
  const { client_secret: _checked, ...stored } = config;
  const keepsSecret = usesSecret(config.token_endpoint_auth_method);
  const issued = keepsSecret && record.secret_digest === undefined;
  const secretDigest = issued ? tokenDigest(newSecret) : record.secret_digest;
  const { secret_digest: _replaced, ...kept } = record;
  const updated: RegisteredClientRecord = {
    ...kept,
    config: stored,
    ...(keepsSecret && secretDigest !== undefined ? { secret_digest: secretDigest } : {}),
  };
  await replaceRegisteredClient(context, updated);
  emitEvent(context, { type: 'client_updated', clientId });
  return registrationAnswer(context, updated, {
    clientSecret: issued ? newSecret : (presentedSecret as string | undefined),
    registrationAccessToken,
  });
}
