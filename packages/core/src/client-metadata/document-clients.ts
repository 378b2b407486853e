import type { ClientMetadataDocumentsConfig } from '../config/client-metadata-documents.js';
import type { RealmConfig } from '../config/realm.js';
import type { OutboundFetcher } from '../outbound/outbound.js';
import { buildClient, type Client, type Realm } from '../realms/realm.js';
import { keptSeconds } from './cache-lifetime.js';
import { clientConfigOfDocument } from './document-client.js';
import { type FetchedDocument, fetchMetadataDocument } from './fetch-document.js';

/** Documents a provider keeps at most; the least recently used is forgotten first. */
export const DEFAULT_MAX_DOCUMENTS = 1000;

interface Kept {
  text: string;
  /** Milliseconds since the epoch after which the document is fetched again. */
  expiresAt: number;
  /** The client the document makes in the realm configuration it was last read for. */
  client: Client;
  realmConfig: RealmConfig;
  /** The client_id, parsed once: findClient checks its host on every request. */
  url: URL;
}

/**
 * Clients read from Client ID Metadata Documents, kept per realm and URL within the realm's
 * `cache_seconds` bounds (honouring the document's Cache-Control inside them) and at most
 * `maxDocuments` in all. Requests arriving while a document is fetched share that fetch. Only a
 * document that made a valid client is kept: a failed fetch or an invalid document fails the
 * requests that waited for it and leaves nothing behind, so the next request fetches again.
 */
export class MetadataDocumentClients {
  readonly #kept = new Map<string, Kept>();
  readonly #fetching = new Map<string, Promise<Kept>>();

  constructor(
    private readonly now: () => number,
    private readonly fetcher: OutboundFetcher,
    private readonly maxDocuments = DEFAULT_MAX_DOCUMENTS,
  ) {}

  /** The parsed URL of the client_id of a document kept for `realm` and still fresh. */
  keptUrl(realm: Realm, clientId: string): URL | undefined {
    const kept = this.#kept.get(`${realm.name}\0${clientId}`);
    return kept && this.now() < kept.expiresAt ? kept.url : undefined;
  }

  /**
   * The client whose client_id is `url` in `realm`; rejects with a MetadataDocumentError when its
   * document cannot be fetched or makes no valid client.
   */
  async client(realm: Realm, url: URL, settings: ClientMetadataDocumentsConfig): Promise<Client> {
    const key = `${realm.name}\0${url.href}`;
    const kept = this.#kept.get(key);
    if (kept) this.#kept.delete(key);
    if (kept && this.now() < kept.expiresAt) {
      const client = clientIn(kept, realm, settings);
      // Kept again (most recently used last) only once it still makes a client in this realm.
      this.#kept.set(key, kept);
      return client;
    }
    let fetching = this.#fetching.get(key);
    if (!fetching) {
      fetching = this.#load(key, realm, url, settings).finally(() => this.#fetching.delete(key));
      this.#fetching.set(key, fetching);
    }
    return clientIn(await fetching, realm, settings);
  }

  /** Documents kept, for tests of the bound. */
  get size(): number {
    return this.#kept.size;
  }

  async #load(
    key: string,
    realm: Realm,
    url: URL,
    settings: ClientMetadataDocumentsConfig,
  ): Promise<Kept> {
    const fetched: FetchedDocument = await fetchMetadataDocument(this.fetcher, url.href, settings);
    const client = documentClient(fetched.text, url.href, realm, settings);
    const seconds = keptSeconds(fetched.cacheControl, settings.cache_seconds);
    const expiresAt = this.now() + seconds * 1000;
    const kept = { text: fetched.text, expiresAt, client, realmConfig: realm.config, url };
    if (seconds > 0) this.#keep(key, kept);
    return kept;
  }

  /** Keeps a document, forgetting the least recently used one past the bound. */
  #keep(key: string, kept: Kept): void {
    this.#kept.delete(key);
    const oldest = this.#kept.keys().next();
    if (!oldest.done && this.#kept.size >= this.maxDocuments) this.#kept.delete(oldest.value);
    this.#kept.set(key, kept);
  }
}

/**
 * The kept document's client in this realm: read again (not fetched) when the realm's
 * configuration changed since, as its scopes decide the client's.
 */
function clientIn(kept: Kept, realm: Realm, settings: ClientMetadataDocumentsConfig): Client {
  if (kept.realmConfig !== realm.config) {
    kept.client = documentClient(kept.text, kept.client.id, realm, settings);
    kept.realmConfig = realm.config;
  }
  return kept.client;
}

function documentClient(
  text: string,
  url: string,
  realm: Realm,
  settings: ClientMetadataDocumentsConfig,
): Client {
  const config = clientConfigOfDocument(text, url, realm.config.scopes);
  return buildClient(config, realm.config.signing_alg, {
    source: 'metadata_document',
    allowPrivateNetworks: settings.private_networks,
  });
}
