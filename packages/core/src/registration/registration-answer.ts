import type { RealmContext } from '../context.js';
import { clientConfigurationPath } from '../endpoints/paths.js';
import { echoedMetadata, usesSecret } from './client-metadata.js';
import type { RegisteredClientRecord } from './registered-clients.js';

/** What the client learns only now, and is never stored in the clear. */
export interface Credentials {
  /** A client_secret just issued (or the one the client itself presented in an update). */
  clientSecret?: string | undefined;
  registrationAccessToken: string;
}

/**
 * The client information response (RFC 7591 §3.2.1, RFC 7592 §3): every accepted field, the
 * client_id and when it was issued, the secret when the client has one to learn, and how to
 * reach its configuration endpoint.
 */
export function registrationAnswer(
  context: RealmContext,
  record: RegisteredClientRecord,
  credentials: Credentials,
): Record<string, unknown> {
  const { config } = record;
  const secret =
    usesSecret(config.token_endpoint_auth_method) && credentials.clientSecret !== undefined
      ? { client_secret: credentials.clientSecret, client_secret_expires_at: 0 }
      : {};
  return {
    client_id: config.client_id,
    client_id_issued_at: record.client_id_issued_at,
    ...secret,
    ...echoedMetadata(config),
    registration_access_token: credentials.registrationAccessToken,
    registration_client_uri: context.realm.url(clientConfigurationPath(config.client_id)),
  };
}
