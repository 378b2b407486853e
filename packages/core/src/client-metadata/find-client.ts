import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Client, Realm } from '../realms/realm.js';
import { isAllowedHost, metadataDocumentUrl } from './client-id-url.js';
import { MetadataDocumentError } from './document-client.js';

/**
 * The client a request names: one the realm configures, or, in a realm that takes Client ID
 * Metadata Documents, the one the document at its client_id URL describes (fetched, or kept
 * from an earlier fetch). Undefined for an unknown client. A client_id URL whose host the realm
 * or the host application does not accept, or whose document makes no valid client, fails with
 * `invalid_client` saying why: the authorization endpoint shows it at the provider, never at the
 * redirect_uri nobody vouched for.
 */
export async function findClient(
  context: RealmContext,
  clientId: string,
): Promise<Client | undefined> {
  const configured = context.realm.clients.get(clientId);
  if (configured) return configured;
  const settings = context.realm.config.client_id_metadata_documents;
  const url = documentUrlIn(context.realm, clientId);
  if (!settings || !url) return undefined;
  if (
    !isAllowedHost(url.hostname, settings.allowed_hosts) ||
    (await context.allowClientIdMetadataDocument?.(url, context.realm.name)) === false
  ) {
    throw new OAuthError(
      'invalid_client',
      'client metadata documents from the host of this client_id are not accepted here',
    );
  }
  try {
    return await context.metadataDocumentClients.client(context.realm, clientId, settings);
  } catch (error) {
    if (!(error instanceof MetadataDocumentError)) throw error;
    throw new OAuthError('invalid_client', error.message, { cause: error });
  }
}

/**
 * Whether a client_id names a client of the realm without looking further: a configured one, or
 * a metadata document URL of a host the realm accepts (a token issued to it stays usable while
 * the realm takes documents from there).
 */
export function isClientOf(realm: Realm, clientId: string): boolean {
  if (realm.clients.has(clientId)) return true;
  const url = documentUrlIn(realm, clientId);
  return (
    url !== undefined &&
    isAllowedHost(url.hostname, realm.config.client_id_metadata_documents?.allowed_hosts)
  );
}

/** The document URL a client_id is, in a realm that takes documents. */
function documentUrlIn(realm: Realm, clientId: string): URL | undefined {
  return realm.config.client_id_metadata_documents?.enabled
    ? metadataDocumentUrl(clientId)
    : undefined;
}
