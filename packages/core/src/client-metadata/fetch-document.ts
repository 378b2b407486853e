import type { ClientMetadataDocumentsConfig } from '../config/client-metadata-documents.js';
import { OutboundError, type OutboundFetcher } from '../outbound/outbound.js';
import { MetadataDocumentError } from './document-client.js';

/** What a document's server has to answer in, the body included. */
export const DOCUMENT_TIMEOUT_MS = 5000;

export interface FetchedDocument {
  text: string;
  cacheControl: string | null;
}

/**
 * GETs a client's metadata document through the provider's bounded fetcher as an outside URL:
 * https, public addresses only unless the realm allows private networks, at most `max_bytes`,
 * 5 s, no redirect followed. Anything but a 200 fails with a MetadataDocumentError saying why,
 * in words that name no address the client_id did not.
 */
export async function fetchMetadataDocument(
  fetcher: OutboundFetcher,
  url: string,
  settings: Pick<ClientMetadataDocumentsConfig, 'private_networks' | 'max_bytes'>,
): Promise<FetchedDocument> {
  let answer: Awaited<ReturnType<OutboundFetcher['send']>>;
  try {
    answer = await fetcher.send({
      url,
      author: 'outside',
      allowPrivateNetworks: settings.private_networks,
      maxBytes: settings.max_bytes,
      timeoutMs: DOCUMENT_TIMEOUT_MS,
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new MetadataDocumentError(`could not be fetched: ${error.message}`, {
      cause: error,
    });
  }
  if (answer.status !== 200) {
    throw new MetadataDocumentError(`could not be fetched: answered HTTP ${answer.status}`);
  }
  return { text: answer.body, cacheControl: answer.headers.get('cache-control') };
}
