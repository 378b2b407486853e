import {
  type ClientInput,
  type ConfigIssue,
  rotateClientSecret,
  type SecretRotation,
  salvage,
  validateRealms,
} from '@gatehouse-oidc/core';
import {
  providerRealm,
  type ServerRealmConfig,
  serverRealmSchema,
} from '../config/server-config.js';
import { hashPassword } from '../login/password.js';
import type { ApiRealms, RealmObject, StoredRealm } from './api-realms.js';
import type { RealmCatalog } from './realm-catalog.js';
import { RealmSecretsUnreadable } from './realm-secrets-unreadable.js';

/** What a write through the admin API came to. */
export type EditOutcome =
  | { status: Written }
  | { status: 'rotated'; rotation: SecretRotation }
  | { status: 'not_found' | 'config_managed' }
  | { status: 'invalid'; issues: ConfigIssue[] }
  | { status: 'secrets_unreadable'; error: RealmSecretsUnreadable };

type Written = 'created' | 'replaced' | 'deleted';

/** The realm object a change makes of the current one and what that is, or why it makes none. */
type Change = (
  current: RealmObject | undefined,
) => { realm: RealmObject; written: EditOutcome } | EditOutcome;

export interface RealmEditorOptions {
  catalog: RealmCatalog;
  apiRealms: ApiRealms;
  /**
   * Client secrets are sealed with a key of this process only (no cookie_secret), while the
   * store outlives it: such a realm could not be read back, so it is refused.
   */
  secretsWouldBeLost: boolean;
  /** Milliseconds since the epoch: when a rotated secret's predecessor stops working. */
  now: () => number;
}

const SECRET_METHODS = new Set(['client_secret_post', 'client_secret_basic', 'client_secret_jwt']);
/** Writes racing on one realm are retried this many times before the request fails. */
const MAX_ATTEMPTS = 5;

/**
 * Writes realms and clients through the admin API. Realms of the config file change only with
 * the file. A body is validated as `gatehouse check` validates the file, and its problems carry
 * paths into that body. A client or user that leaves its secret out keeps the one it has, so
 * what GET answers can be changed and PUT back.
 */
export class RealmEditor {
  readonly #catalog: RealmCatalog;
  readonly #api: ApiRealms;
  readonly #secretsWouldBeLost: boolean;
  readonly #now: () => number;

  constructor({ catalog, apiRealms, secretsWouldBeLost, now }: RealmEditorOptions) {
    this.#catalog = catalog;
    this.#api = apiRealms;
    this.#secretsWouldBeLost = secretsWouldBeLost;
    this.#now = now;
  }

  putRealm(name: string, body: unknown): Promise<EditOutcome> {
    return this.#change(name, undefined, (current) => {
      if (!isObject(body)) return invalid('', 'must be a JSON object');
      if (body.name !== undefined && body.name !== name) {
        return invalid('name', `must be "${name}", the realm's name in the URL`);
      }
      return {
        realm: keepSecrets({ ...body, name }, current),
        written: { status: current ? 'replaced' : 'created' },
      };
    });
  }

  putClient(realm: string, clientId: string, body: unknown): Promise<EditOutcome> {
    return this.#change(realm, clientId, (current) => {
      if (!current) return { status: 'not_found' };
      if (!isObject(body)) return invalid('', 'must be a JSON object');
      if (body.client_id !== undefined && body.client_id !== clientId) {
        return invalid('client_id', `must be "${clientId}", the client_id in the URL`);
      }
      const clients = clientsOf(current);
      const index = clients.findIndex((client) => client.client_id === clientId);
      const next = [...clients];
      next.splice(index === -1 ? next.length : index, index === -1 ? 0 : 1, {
        ...body,
        client_id: clientId,
      });
      return {
        realm: keepSecrets({ ...current, clients: next }, current),
        written: { status: index === -1 ? 'created' : 'replaced' },
      };
    });
  }

  deleteClient(realm: string, clientId: string): Promise<EditOutcome> {
    return this.#change(realm, undefined, (current) => {
      const clients = current ? clientsOf(current) : [];
      if (!clients.some((client) => client.client_id === clientId)) return { status: 'not_found' };
      const remaining = clients.filter((client) => client.client_id !== clientId);
      return { realm: { ...current, clients: remaining }, written: { status: 'deleted' } };
    });
  }

  /**
   * Gives the client a new generated secret (`rotateClientSecret`), the one it replaces working
   * for `overlapSeconds` more; a client that authenticates without a secret has none to rotate.
   */
  rotateSecret(realm: string, clientId: string, overlapSeconds: number): Promise<EditOutcome> {
    const now = this.#now();
    return this.#change(realm, clientId, (current) => {
      const clients = current ? clientsOf(current) : [];
      const index = clients.findIndex((client) => client.client_id === clientId);
      const client = clients[index];
      if (!current || !client) return { status: 'not_found' };
      if (!needsSecret(client)) {
        const method = String(client.token_endpoint_auth_method);
        return invalid('', `the client authenticates with ${method}, without a secret`);
      }
      const rotation = rotateClientSecret(client as ClientInput, { overlapSeconds, now });
      const next = clients.with(index, rotation.client as RealmObject);
      return { realm: { ...current, clients: next }, written: { status: 'rotated', rotation } };
    });
  }

  async deleteRealm(name: string): Promise<EditOutcome> {
    if (this.#catalog.isFileRealm(name)) return { status: 'config_managed' };
    const deleted = await this.#api.delete(name);
    this.#catalog.forget(name);
    return { status: deleted ? 'deleted' : 'not_found' };
  }

  /**
   * Reads the realm, applies the change, validates and writes it if nobody wrote it meanwhile
   * (else starts again). With `clientId` the body is that client, and its problems are reported
   * relative to it.
   */
  async #change(name: string, clientId: string | undefined, change: Change): Promise<EditOutcome> {
    if (this.#catalog.isFileRealm(name)) return { status: 'config_managed' };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.#api.read(name);
      const { current, unreadable } = record ? this.#opened(name, record.value) : {};
      const next = change(current);
      if ('status' in next) return next;
      // Only the secrets the change gives anew can be written: the stored ones do not open.
      if (unreadable && lacksUnreadableSecret(next.realm, unreadable)) {
        return { status: 'secrets_unreadable', error: unreadable };
      }
      const issues = this.#problems(next.realm);
      if (issues.length > 0) {
        return { status: 'invalid', issues: relativeTo(clientId, next.realm, issues) };
      }
      if (await this.#api.write(name, record?.revision, await hashPasswords(next.realm))) {
        this.#catalog.forget(name);
        return next.written;
      }
    }
    throw new Error(`realm "${name}" kept changing during ${MAX_ATTEMPTS} attempts to write it`);
  }

  /** The stored realm with its client secrets, or, when they do not open, without them and why. */
  #opened(
    name: string,
    stored: StoredRealm,
  ): { current: RealmObject; unreadable?: RealmSecretsUnreadable } {
    try {
      return { current: this.#api.open(name, stored) };
    } catch (error) {
      if (!(error instanceof RealmSecretsUnreadable)) throw error;
      return { current: stored.realm, unreadable: error };
    }
  }

  /** The problems `gatehouse check` would find in this realm, paths relative to it. */
  #problems(realm: RealmObject): ConfigIssue[] {
    const { issues, value, inInput } = salvage(serverRealmSchema, realm);
    if (!value) return issues;
    return [...issues, ...inInput(this.#ruleIssues(value))];
  }

  /** The cross-field rules, and whether client secrets and the initial access token can be kept. */
  #ruleIssues(realm: ServerRealmConfig): ConfigIssue[] {
    const { issues } = validateRealms([{ path: '', input: providerRealm(realm) }]);
    if (!this.#secretsWouldBeLost) return issues;
    return [
      ...issues,
      ...(realm.registration?.initial_access_token === undefined
        ? []
        : [
            {
              path: 'registration.initial_access_token',
              message:
                'cannot be kept: set cookie_secret in the config, the key it is encrypted with in the shared store',
            },
          ]),
      ...realm.clients.flatMap((client, index) =>
        client.client_secret === undefined
          ? []
          : [
              {
                path: `clients[${index}].client_secret`,
                message:
                  'cannot be kept: set cookie_secret in the config, the key client secrets are encrypted with in the shared store',
              },
            ],
      ),
    ];
  }
}

function invalid(path: string, message: string): EditOutcome {
  return { status: 'invalid', issues: [{ path, message }] };
}

function isObject(value: unknown): value is RealmObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clientsOf(realm: RealmObject): RealmObject[] {
  return Array.isArray(realm.clients) ? realm.clients.filter(isObject) : [];
}

function usersOf(realm: RealmObject): RealmObject[] {
  return Array.isArray(realm.users) ? realm.users.filter(isObject) : [];
}

/**
 * Clients that need a secret and users without a password keep what they have now; a client
 * keeps the previous secret of a rotation with its expiry too. A client given a new secret keeps
 * no previous one: the secret it replaces stops working at once.
 */
function keepSecrets(realm: RealmObject, current: RealmObject | undefined): RealmObject {
  if (!current) return realm;
  const secrets = new Map(clientsOf(current).map((client) => [client.client_id, client]));
  const hashes = new Map(usersOf(current).map((user) => [user.sub, user]));
  const clients = Array.isArray(realm.clients)
    ? realm.clients.map((client: unknown) => {
        if (!isObject(client) || client.client_secret !== undefined) return client;
        const kept = secrets.get(client.client_id);
        return needsSecret(client) && kept?.client_secret !== undefined
          ? { ...client, ...pick(kept, KEPT_SECRET_FIELDS) }
          : client;
      })
    : realm.clients;
  const users = Array.isArray(realm.users)
    ? realm.users.map((user: unknown) => {
        if (!isObject(user) || user.password !== undefined || user.password_hash !== undefined) {
          return user;
        }
        const hash = hashes.get(user.sub)?.password_hash;
        return hash === undefined ? user : { ...user, password_hash: hash };
      })
    : realm.users;
  return { ...realm, clients, users, ...keptInitialAccessToken(realm, current) };
}

/**
 * A registration that names neither an initial access token nor `open` keeps the token it has,
 * which the admin API never shows.
 */
function keptInitialAccessToken(realm: RealmObject, current: RealmObject): RealmObject {
  const { registration } = realm;
  const token = isObject(current.registration)
    ? current.registration.initial_access_token
    : undefined;
  if (!isObject(registration) || token === undefined || !lacksInitialAccess(registration)) {
    return {};
  }
  return { registration: { ...registration, initial_access_token: token } };
}

const lacksInitialAccess = (registration: RealmObject): boolean =>
  registration.initial_access_token === undefined && registration.open !== true;

/** A secret the change does not give anew, where the stored one does not open. */
function lacksUnreadableSecret(realm: RealmObject, unreadable: RealmSecretsUnreadable): boolean {
  if (clientsOf(realm).some((client) => lacksSecret(client, unreadable))) return true;
  return (
    unreadable.initialAccessToken &&
    isObject(realm.registration) &&
    lacksInitialAccess(realm.registration)
  );
}

const KEPT_SECRET_FIELDS = [
  'client_secret',
  'previous_client_secret',
  'previous_client_secret_expires_at',
] as const;

function pick(object: RealmObject, keys: readonly string[]): RealmObject {
  return Object.fromEntries(
    keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]]),
  );
}

function needsSecret(client: RealmObject): boolean {
  return SECRET_METHODS.has(String(client.token_endpoint_auth_method ?? 'client_secret_basic'));
}

/** A client that needs the secret it had, which does not open. */
function lacksSecret(client: RealmObject, unreadable: RealmSecretsUnreadable): boolean {
  return (
    client.client_secret === undefined &&
    needsSecret(client) &&
    unreadable.clientIds.includes(String(client.client_id))
  );
}

/** Plain-text passwords never reach the store: each is replaced by its scrypt hash. */
async function hashPasswords(realm: RealmObject): Promise<RealmObject> {
  if (!Array.isArray(realm.users)) return realm;
  const users = await Promise.all(
    realm.users.map(async (user: unknown) => {
      if (!isObject(user) || typeof user.password !== 'string') return user;
      const { password, ...rest } = user;
      return { ...rest, password_hash: await hashPassword(password) };
    }),
  );
  return { ...realm, users };
}

/** For a client's body, that client's problems without their `clients[i]` prefix. */
function relativeTo(clientId: string | undefined, realm: RealmObject, issues: ConfigIssue[]) {
  if (clientId === undefined) return issues;
  const prefix = `clients[${clientsOf(realm).findIndex((client) => client.client_id === clientId)}]`;
  return issues.map((issue) =>
    issue.path === prefix || issue.path.startsWith(`${prefix}.`)
      ? { ...issue, path: issue.path.slice(prefix.length + 1) }
      : issue,
  );
}
