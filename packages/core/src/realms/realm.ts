import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { remoteKeySet } from '../client-auth/remote-key-set.js';
import type { ClientConfig } from '../config/client.js';
import { splitScope } from '../config/primitives.js';
import type { RealmConfig } from '../config/realm.js';
import type { ResourceConfig } from '../config/resource.js';
import { sha256Bytes } from '../crypto/digest.js';

/** A client as the handlers use it: its configuration plus what is derived once from it. */
export interface Client {
  readonly id: string;
  readonly config: ClientConfig;
  readonly scopes: ReadonlySet<string>;
  readonly defaultScopes: readonly string[];
  readonly grantTypes: ReadonlySet<string>;
  /** SHA-256 of the client secret, for constant-time comparison. */
  readonly secretDigest: Uint8Array | undefined;
  /**
   * What client assertions are verified with: the secret's bytes for client_secret_jwt, the
   * registered key set for private_key_jwt (a remote one is fetched on first use), else nothing.
   */
  readonly assertionKey: Uint8Array | JWTVerifyGetKey | undefined;
}

/** A validated, frozen realm: what every handler receives. */
export interface Realm {
  readonly name: string;
  /** `{base_url}/oauth/{name}`, never derived from request headers. */
  readonly issuer: string;
  readonly config: RealmConfig;
  readonly clients: ReadonlyMap<string, Client>;
  /** Protected resources keyed by URI. */
  readonly resources: ReadonlyMap<string, ResourceConfig>;
  /** The largest lifetime of anything this realm signs: how long a retired key must stay published. */
  readonly longestSignedLifetime: number;
  /** Absolute URL of an endpoint path below the issuer, e.g. `token`. */
  url(path: string): string;
}

export function buildRealm(config: RealmConfig, baseUrl: string): Realm {
  const frozen = deepFreeze(config);
  const issuer = `${baseUrl}/oauth/${frozen.name}`;
  return Object.freeze({
    name: frozen.name,
    issuer,
    config: frozen,
    clients: new Map(frozen.clients.map((client) => [client.client_id, buildClient(client)])),
    resources: new Map(frozen.resources.map((resource) => [resource.uri, resource])),
    longestSignedLifetime: Math.max(frozen.access_token_ttl, frozen.id_token_ttl),
    url: (path: string) => `${issuer}/${path}`,
  });
}

function buildClient(config: ClientConfig): Client {
  const scopes = splitScope(config.scope);
  return Object.freeze({
    id: config.client_id,
    config,
    scopes: new Set(scopes),
    defaultScopes: config.default_scope === undefined ? scopes : splitScope(config.default_scope),
    grantTypes: new Set(config.grant_types),
    secretDigest:
      config.client_secret === undefined ? undefined : sha256Bytes(config.client_secret),
    assertionKey: assertionKey(config),
  });
}

function assertionKey(config: ClientConfig): Uint8Array | JWTVerifyGetKey | undefined {
  const { token_endpoint_auth_method: method, client_secret, jwks, jwks_uri } = config;
  if (method === 'client_secret_jwt') return new TextEncoder().encode(client_secret);
  if (method !== 'private_key_jwt') return undefined;
  return jwks_uri ? remoteKeySet(jwks_uri) : createLocalJWKSet({ keys: [...(jwks?.keys ?? [])] });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
