import type { Revised, Store } from '@gatehouse-oidc/core';
import { type ServerRealmConfig, serverRealmSchema } from '../config/server-config.js';
import { RealmSecretsUnreadable } from './realm-secrets-unreadable.js';
import type { SecretBox } from './secret-box.js';

const NAMESPACE = 'admin_realm';
/**
 * Every realm record is written under this grant id: the Store lists records by grant only, and
 * this is how `GET /admin/realms` finds the realms of the API without a record of its own.
 */
const REALMS_GROUP = 'gatehouse:admin-realms';

/**
 * A record written again after every change to a realm: its revision tells every instance that
 * some realm changed, in one read however many realms they hold.
 */
const CHANGES_NAMESPACE = 'admin_realm_changes';
const CHANGES_ID = 'every_realm';

/** A realm object as the admin API takes it (and the config file holds it). */
export type RealmObject = Record<string, unknown>;

/** A realm written through the admin API, as the store keeps it. */
export interface StoredRealm {
  /** The realm object as given, without its client secrets; passwords are hashed. */
  realm: RealmObject;
  /** The sealed secret of each client that has one, by client_id. */
  secrets: Record<string, string>;
  /** The sealed previous secret of each client within a rotation's overlap, by client_id. */
  previous_secrets?: Record<string, string>;
  /** The sealed `registration.initial_access_token`, when the realm has one. */
  initial_access_token?: string;
}

/** The client fields that hold a secret, and where the store keeps each sealed. */
const SECRET_FIELDS = [
  { field: 'client_secret', sealedIn: 'secrets' },
  { field: 'previous_client_secret', sealedIn: 'previous_secrets' },
] as const;

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
   * Writes the realm if its record is still at `revision` (undefined: if there is none yet), then
   * announces the change. False when another write came first.
   */
  async write(name: string, revision: number | undefined, realm: RealmObject): Promise<boolean> {
    const stored = this.#seal(name, realm);
    const written =
      revision === undefined
        ? await this.#store.add(NAMESPACE, name, stored, { grantId: REALMS_GROUP })
        : await this.#store.replace(NAMESPACE, name, revision, stored);
    if (written) await this.#announceChange();
    return written;
  }

  async delete(name: string): Promise<boolean> {
    const deleted = await this.#store.delete(NAMESPACE, name);
    if (deleted) await this.#announceChange();
    return deleted;
  }

  /**
   * A number that changes after every write or deletion of a realm through the admin API, at any
   * instance sharing the store: while it stays the same, no realm read before it changed.
   */
  async generation(): Promise<number> {
    return (await this.#store.read(CHANGES_NAMESPACE, CHANGES_ID))?.revision ?? 0;
  }

  /** After the realm's own write, so an instance that sees the new generation reads the change. */
  #announceChange(): Promise<void> {
    return this.#store.set(CHANGES_NAMESPACE, CHANGES_ID, {});
  }

  /**
   * The realm object as it was written, its client secrets opened. Throws RealmSecretsUnreadable
   * when they were sealed with another key.
   */
  open(name: string, stored: StoredRealm): RealmObject {
    const registration = this.#openedRegistration(name, stored);
    const unreadable = new Set<string>();
    const withSecrets = clientsOf(stored.realm).map((client) => {
      const opened: RealmObject = { ...client };
      for (const { field, sealedIn } of SECRET_FIELDS) {
        const sealed = sealedSecretOf(stored[sealedIn] ?? {}, client);
        if (sealed === undefined) continue;
        try {
          opened[field] = this.#box.open(sealed, secretContext(name, client, field));
        } catch {
          unreadable.add(String(client.client_id));
        }
      }
      return unreadable.has(String(client.client_id)) ? client : opened;
    });
    if (unreadable.size > 0 || registration === UNREADABLE) {
      throw new RealmSecretsUnreadable(name, [...unreadable], this.#box.durable, {
        initialAccessToken: registration === UNREADABLE,
      });
    }
    return {
      ...stored.realm,
      ...(registration === undefined ? {} : { registration }),
      clients: withSecrets,
    };
  }

  /** The realm's registration with its initial access token opened; undefined without one. */
  #openedRegistration(
    name: string,
    stored: StoredRealm,
  ): RealmObject | undefined | typeof UNREADABLE {
    const sealed = stored.initial_access_token;
    if (typeof sealed !== 'string') return undefined;
    try {
      const token = this.#box.open(sealed, initialAccessTokenContext(name));
      return { ...registrationOf(stored.realm), initial_access_token: token };
    } catch {
      return UNREADABLE;
    }
  }

  /** The stored realm as the server uses it; throws as `open` does. */
  decode(name: string, stored: StoredRealm): ServerRealmConfig {
    return serverRealmSchema.parse(this.open(name, stored));
  }

  /** The stored realm without its client secrets, which need no key: what the admin API shows. */
  withoutSecrets({ realm }: StoredRealm): ServerRealmConfig {
    return serverRealmSchema.parse(realm);
  }

  /**
   * The realms whose client secrets do not open with this server's key, read one at a time: a
   * store may hold a hundred thousand realms, which must not all be in memory at once, and the
   * check runs while the server serves, so it takes one of the store's connections and a sliver
   * of the event loop at a time. Sixteen at a time, realms' first requests queued behind its
   * reads: their p99 rose by a quarter at 10,000 realms (docs/performance.md). Of each realm one
   * sealed value is opened, all of them only when it does not open: every write seals the whole
   * realm with one key (`#seal`), so the first tells of the rest, at a tenth of the cost. A
   * record changed outside the server (by hand, from mixed backups) may hide an unreadable value
   * behind a readable first one: that realm answers 503 at its first request, and says why.
   */
  async unreadable(): Promise<RealmSecretsUnreadable[]> {
    const problems: RealmSecretsUnreadable[] = [];
    for (const name of await this.names()) {
      const problem = await this.#unreadable(name);
      if (problem) problems.push(problem);
    }
    return problems;
  }

  async #unreadable(name: string): Promise<RealmSecretsUnreadable | undefined> {
    const record = await this.read(name);
    try {
      if (record && !this.#firstOpens(name, record.value)) this.open(name, record.value);
      return undefined;
    } catch (error) {
      if (error instanceof RealmSecretsUnreadable) return error;
      throw error;
    }
  }

  /** Whether the realm's first sealed value opens with this server's key (true without one). */
  #firstOpens(name: string, stored: StoredRealm): boolean {
    for (const client of clientsOf(stored.realm)) {
      for (const { field, sealedIn } of SECRET_FIELDS) {
        const sealed = sealedSecretOf(stored[sealedIn] ?? {}, client);
        if (sealed !== undefined) return this.#opens(sealed, secretContext(name, client, field));
      }
    }
    const token = stored.initial_access_token;
    return typeof token !== 'string' || this.#opens(token, initialAccessTokenContext(name));
  }

  #opens(sealed: string, context: string): boolean {
    try {
      this.#box.open(sealed, context);
      return true;
    } catch {
      return false;
    }
  }

  /** The realm as the store keeps it: client secrets and the initial access token sealed apart. */
  #seal(name: string, realm: RealmObject): StoredRealm {
    // No prototype: a client_id such as "__proto__" or "constructor" is a key like any other.
    const sealed = { secrets: Object.create(null), previous_secrets: Object.create(null) };
    const withoutSecrets = clientsOf(realm).map((client) => {
      const rest: RealmObject = { ...client };
      for (const { field, sealedIn } of SECRET_FIELDS) {
        const secret = rest[field];
        delete rest[field];
        if (typeof secret === 'string') {
          sealed[sealedIn][String(client.client_id)] = this.#box.seal(
            secret,
            secretContext(name, client, field),
          );
        }
      }
      return rest;
    });
    const { initial_access_token: token, ...registration } = registrationOf(realm);
    if (typeof token !== 'string')
      return { realm: { ...realm, clients: withoutSecrets }, ...sealed };
    return {
      realm: { ...realm, registration, clients: withoutSecrets },
      ...sealed,
      initial_access_token: this.#box.seal(token, initialAccessTokenContext(name)),
    };
  }
}

/** A sealed value that does not open with this server's key. */
const UNREADABLE = Symbol('unreadable');

function registrationOf(realm: RealmObject): RealmObject {
  const { registration } = realm;
  return typeof registration === 'object' && registration !== null && !Array.isArray(registration)
    ? (registration as RealmObject)
    : {};
}

/** What a sealed initial access token is bound to: this realm's registration only. */
const initialAccessTokenContext = (realm: string): string =>
  JSON.stringify([realm, 'registration.initial_access_token']);

/** The client's own sealed secret: never one inherited from Object.prototype ("constructor"). */
function sealedSecretOf(secrets: Record<string, string>, client: RealmObject): string | undefined {
  const id = String(client.client_id);
  const sealed = Object.hasOwn(secrets, id) ? secrets[id] : undefined;
  return typeof sealed === 'string' ? sealed : undefined;
}

function clientsOf(realm: RealmObject): RealmObject[] {
  return Array.isArray(realm.clients) ? (realm.clients as RealmObject[]) : [];
}

/**
 * What a sealed secret is bound to: it opens for this realm, client and field only (the current
 * secret keeps the context it had before previous secrets were kept).
 */
function secretContext(realm: string, client: RealmObject, field: string): string {
  return JSON.stringify(
    field === 'client_secret' ? [realm, client.client_id] : [realm, client.client_id, field],
  );
}
