import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Client, Realm } from '../realms/realm.js';
import { registeredClient, registeredClientRecord } from '../registration/registered-clients.js';
import { isAllowedHost, metadataDocumentUrl } from './client-id-url.js';
import { MetadataDocumentError } from './document-client.js';

/**
 * The client a request names: one the realm configures, in a realm that takes Client ID
 * Metadata Documents the one the document at its client_id URL describes (fetched, or kept
 * from an earlier fetch), or in a realm that takes registrations one registered there (read
 * from the store). Undefined for an unknown client. A client_id URL whose host the realm
 * or the host application does not accept, or whose document makes no valid client, fails with
 * `invalid_client` saying why: the authorization endpoint shows it at the provider, never at the
 * redirect_uri nobody vouched for.
 */
export async function findClient(
  context: RealmContext,
  clientId: string,
): Promise<Client | undefined> {
  const { realm, allowClientIdMetadataDocument: hostAllows } = context;
  const configured = realm.clients.get(clientId);
  if (configured) return configured;
  const settings = realm.config.client_id_metadata_documents;
  const url = settings?.enabled
    ? (context.metadataDocumentClients.keptUrl(realm, clientId) ?? metadataDocumentUrl(clientId))
    : undefined;
  if (!settings || !url) return registeredClient(context, clientId);
  if (
    !isAllowedHost(url.hostname, settings.allowed_hosts) ||
    (hostAllows && (await hostAllows(url, realm.name)) === false)
  ) {
    throw new OAuthError(
      'invalid_client',
      'client metadata documents from the host of this client_id are not accepted here',
    );
  }
  try {
    return await context.metadataDocumentClients.client(realm, url, settings);
  } catch (error) {
    if (!(error instanceof MetadataDocumentError)) throw error;
    throw new OAuthError('invalid_client', error.message, { cause: error });
  }
}

/**
 * Whether a client_id names a client of the realm without fetching anything: a configured one, a
 * metadata document URL of a host the realm accepts (a token issued to it stays usable while
 * the realm takes documents from there), or a client registered there and not removed.
 */
export async function isClientOf(context: RealmContext, clientId: string): Promise<boolean> {
  const { realm } = context;
  if (realm.clients.has(clientId)) return true;
  const url = documentUrlIn(realm, clientId);
  if (url !== undefined) {
    return isAllowedHost(url.hostname, realm.config.client_id_metadata_documents?.allowed_hosts);
  }
  return (await registeredClientRecord(context, clientId)) !== undefined;
}

/** The document URL a client_id is, in a realm that takes documents. */
function documentUrlIn(realm: Realm, clientId: string): URL | undefined {
  return realm.config.client_id_metadata_documents?.enabled
    ? metadataDocumentUrl(clientId)
    : undefined;
}
