import type { ClientConfig } from '../config/client.js';
import type { Client } from './realm.js';

/**
 * A realm's configured clients by client_id, each built at its first lookup. A request names one
 * client, and a built client holds its secret's digest and three sets, about a kilobyte: a realm
 * of ten clients touched once by a restarted server kept 19.5 KiB in memory when all were built
 * as it loaded, 11.6 KiB now (docs/performance.md).
 */
export class RealmClients implements ReadonlyMap<string, Client> {
  readonly #configs: ReadonlyMap<string, ClientConfig>;
  readonly #build: (config: ClientConfig) => Client;
  readonly #built = new Map<string, Client>();

  constructor(configs: readonly ClientConfig[], build: (config: ClientConfig) => Client) {
    this.#configs = new Map(configs.map((config) => [config.client_id, config]));
    this.#build = build;
  }

  get size(): number {
    return this.#configs.size;
  }

  get(clientId: string): Client | undefined {
    const built = this.#built.get(clientId);
    if (built) return built;
    const config = this.#configs.get(clientId);
    if (!config) return undefined;
    const client = this.#build(config);
    this.#built.set(clientId, client);
    return client;
  }

  has(clientId: string): boolean {
    return this.#configs.has(clientId);
  }

  forEach(
    callback: (client: Client, clientId: string, map: ReadonlyMap<string, Client>) => void,
    thisArg?: unknown,
  ): void {
    for (const [clientId, client] of this.#all()) callback.call(thisArg, client, clientId, this);
  }

  entries(): MapIterator<[string, Client]> {
    return this.#all().entries();
  }

  keys(): MapIterator<string> {
    return this.#configs.keys();
  }

  values(): MapIterator<Client> {
    return this.#all().values();
  }

  [Symbol.iterator](): MapIterator<[string, Client]> {
    return this.entries();
  }

  /** Every client built, in the order of the configuration. */
  #all(): Map<string, Client> {
    return new Map(
      [...this.#configs.keys()].map((clientId) => [clientId, this.get(clientId) as Client]),
    );
  }
}
