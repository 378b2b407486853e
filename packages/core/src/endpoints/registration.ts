import { type EndpointHandler, nowSeconds } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { OAuthError } from '../errors/oauth-error.js';
import { emitEvent } from '../events/emit.js';
import { withAnyOriginCors } from '../http/cors.js';
import { readJson } from '../http/read-json.js';
import { noStoreJson } from '../http/responses.js';
import { registeredClientConfig, usesSecret } from '../registration/client-metadata.js';
import { checkInitialAccess } from '../registration/initial-access.js';
import {
  addRegisteredClient,
  type RegisteredClientRecord,
} from '../registration/registered-clients.js';
import { registrationAnswer } from '../registration/registration-answer.js';

/** 128 bits: a client_id nobody guesses, short enough for every URL it travels in. */
const CLIENT_ID_BYTES = 16;

/**
 * Dynamic client registration (RFC 7591): the client metadata of a JSON body, within the realm's
 * policy, makes a client whose credentials are answered once and kept only as digests.
 */
export const registrationEndpoint: EndpointHandler = async (request, context) => {
  const { realm } = context;
  const settings = realm.config.registration;
  if (!settings) throw new OAuthError('not_found', 'this realm does not register clients');
  checkInitialAccess(request, realm.issuer, settings);
  const metadata = readJson(request, context.maxBodyBytes, 'invalid_client_metadata');
  const clientSecret = randomId();
  const config = registeredClientConfig(metadata, realm, settings, {
    clientId: randomId(CLIENT_ID_BYTES),
    clientSecret,
  });
  const withSecret = usesSecret(config.token_endpoint_auth_method);
  const registrationAccessToken = randomId();
  const now = nowSeconds(context);
  const { client_secret: _kept, ...stored } = config;
  const record: RegisteredClientRecord = {
    config: stored,
    ...(withSecret ? { secret_digest: tokenDigest(clientSecret) } : {}),
    registration_token_digest: tokenDigest(registrationAccessToken),
    client_id_issued_at: now,
    last_used_at: now,
  };
  if (!(await addRegisteredClient(context, settings, record))) {
    throw new OAuthError(
      'temporarily_unavailable',
      'this realm holds as many registered clients as it may',
      { status: 429 },
    );
  }
  emitEvent(context, { type: 'client_registered', clientId: config.client_id });
  const answer = registrationAnswer(context, record, {
    clientSecret: withSecret ? clientSecret : undefined,
    registrationAccessToken,
  });
  return withAnyOriginCors(noStoreJson(201, answer), request);
};
