import type { Revised, Store } from '@gatehouse-oidc/core';
import { type ServerRealmConfig, serverRealmSchema } from '../config/server-config.js';
import type { SecretBox } from './secret-box.js';

const NAMESPACE = 'admin_realm';
/**
 * Every realm record is written under this grant id: the Store lists records by grant only, and
 * this is how `GET /admin/realms` finds the realms of the API without a record of its own.
 */
const REALMS_GROUP = 'gatehouse:admin-realms';

/** A realm object as the admin API takes it (and the config file holds it). */
export type RealmObject = Record<string, unknown>;

/** A realm written through the admin API, as the store keeps it. */
export interface StoredRealm {
  /** The realm object as given, without its client secrets; passwords are hashed. */
  realm: RealmObject;
  /** The sealed secret of each client that has one, by client_id. */
  secrets: Record<string, string>;
}

/** The realms written through the admin API, in the store every instance shares. */
export class ApiRealms {
  readonly #store: Store;
  readonly #box: SecretBox;

  constructor(store: Store, box: SecretBox) {
    this.#store = store;
    this.#box = box;
  }

  async names(): Promise<string[]> {
    const keys = await this.#store.listGrant(REALMS_GROUP);
    return keys.filter((key) => key.namespace === NAMESPACE).map((key) => key.id);
  }

  read(name: string): Promise<Revised<StoredRealm> | undefined> {
    return this.#store.read<StoredRealm>(NAMESPACE, name);
  }

  /**
   * Writes the realm if its record is still at `revision` (undefined: if there is none yet).
   * False when another write came first.
   */
  write(name: string, revision: number | undefined, realm: RealmObject): Promise<boolean> {
    const stored = this.#seal(name, realm);
    return revision === undefined
      ? this.#store.add(NAMESPACE, name, stored, { grantId: REALMS_GROUP })
      : this.#store.replace(NAMESPACE, name, revision, stored);
  }

  delete(name: string): Promise<boolean> {
    return this.#store.delete(NAMESPACE, name);
  }

  /** The realm object as it was written, its client secrets opened. */
  open(name: string, { realm, secrets }: StoredRealm): RealmObject {
    const clients = Array.isArray(realm.clients) ? (realm.clients as RealmObject[]) : [];
    const withSecrets = clients.map((client) => {
      const sealed = secrets[String(client.client_id)];
      return sealed === undefined
        ? client
        : { ...client, client_secret: this.#box.open(sealed, secretContext(name, client)) };
    });
    return { ...realm, clients: withSecrets };
  }

  /** The stored realm as the server uses it. */
  decode(name: string, stored: StoredRealm): ServerRealmConfig {
    return serverRealmSchema.parse(this.open(name, stored));
  }

  /** The realm as the store keeps it: client secrets sealed and set apart. */
  #seal(name: string, realm: RealmObject): StoredRealm {
    const clients = Array.isArray(realm.clients) ? (realm.clients as RealmObject[]) : [];
    const secrets: Record<string, string> = {};
    const withoutSecrets = clients.map(({ client_secret, ...client }) => {
      if (typeof client_secret === 'string') {
        secrets[String(client.client_id)] = this.#box.seal(
          client_secret,
          secretContext(name, client),
        );
      }
      return client;
    });
    return { realm: { ...realm, clients: withoutSecrets }, secrets };
  }
}

/** What a sealed secret is bound to: it opens for this realm and client only. */
function secretContext(realm: string, client: RealmObject): string {
  return JSON.stringify([realm, client.client_id]);
}
