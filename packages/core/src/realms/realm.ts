import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { ASYMMETRIC_ASSERTION_ALGORITHMS, type ClientConfig } from '../config/client.js';
import { isFapi2 } from '../config/fapi2.js';
import { splitScope } from '../config/primitives.js';
import type { RealmConfig } from '../config/realm.js';
import type { ResourceConfig } from '../config/resource.js';
import {
  ALWAYS_AVAILABLE_ID_TOKEN_ALG,
  type SigningAlgorithm,
} from '../config/signing-algorithms.js';
import type { TrustedIssuerConfig, TrustedIssuerProfile } from '../config/trusted-issuer.js';
import { sha256Bytes } from '../crypto/digest.js';
import type { ErrorDialect } from '../errors/codes.js';
import { ANY_ORIGIN, type Origins } from '../http/cors.js';
import type { UrlAuthor } from '../outbound/outbound.js';
import { RealmClients } from './realm-clients.js';

/**
 * How long a back-channel logout token lives: its receiver needs it only on arrival, and each
 * delivery attempt is sent a token made for it. Retired keys stay published at least this long.
 */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/** A client as the handlers use it: its configuration plus what is derived once from it. */
export interface Client {
  readonly id: string;
  readonly config: ClientConfig;
  /**
   * Where its metadata comes from: the realm's configuration, the Client ID Metadata Document
   * its client_id points to, or its own registration (RFC 7591). In the last two its redirect
   * URIs and jwks_uri were written by an outsider.
   */
  readonly source: ClientSource;
  readonly scopes: ReadonlySet<string>;
  readonly defaultScopes: readonly string[];
  readonly grantTypes: ReadonlySet<string>;
  /** Origins whose scripts may read its answers (CORS): `allowed_origins`, else its redirect URIs'. */
  readonly allowedOrigins: ReadonlySet<string>;
  /** What its ID tokens are signed with: its id_token_signed_response_alg, else the realm's. */
  readonly idTokenAlg: SigningAlgorithm;
  /** SHA-256 of the client secret, for constant-time comparison. */
  readonly secretDigest: Uint8Array | undefined;
  /** The secret it replaced, accepted until it expires (`previous_client_secret`). */
  readonly previousSecret: PreviousSecret | undefined;
  /**
   * What client assertions are verified with: the secret's bytes for client_secret_jwt, the
   * registered key set for private_key_jwt or the URI it is fetched from (the provider keeps
   * fetched sets, so they outlive a realm rebuilt by a loader), else nothing.
   */
  readonly assertionKey: Uint8Array | JWTVerifyGetKey | RemoteJwks | undefined;
  /**
   * Its registered public keys (`jwks`, or the `jwks_uri` they are fetched from), whatever its
   * authentication method: what its signed request objects are verified with.
   */
  readonly publicKeys: JWTVerifyGetKey | RemoteJwks | undefined;
}

/** A replaced client secret during its overlap with the new one. */
export interface PreviousSecret {
  /** SHA-256 of the secret, for constant-time comparison. */
  readonly digest: Uint8Array;
  /** The secret's bytes, which client_secret_jwt assertions may still be signed with. */
  readonly hmacKey: Uint8Array;
  /** Seconds since the epoch from which it no longer works. */
  readonly expiresAt: number;
}

export type ClientSource = 'configuration' | 'metadata_document' | 'registration';

/** A key set the client publishes at a URI. */
export interface RemoteJwks {
  readonly jwksUri: string;
  /** Who wrote the URI: the operator, or a metadata document (an outside URL). */
  readonly author: UrlAuthor;
  /** An outside URI may reach private networks (its realm's `private_networks`). */
  readonly allowPrivateNetworks: boolean;
}

/** An issuer whose JWTs the jwt-bearer grant accepts, keyed by its `iss`. */
export interface TrustedIssuer {
  readonly issuer: string;
  readonly profile: TrustedIssuerProfile;
  /** The asymmetric JWS algorithms accepted from it: never `none` nor HMAC. */
  readonly algorithms: readonly string[];
  /** Its configured key set, or the URI the provider fetches it from (the operator wrote it). */
  readonly keys: JWTVerifyGetKey | RemoteJwks;
}

/** A client whose metadata an outsider wrote: a metadata document, or a registration. */
export interface OutsideMetadata {
  readonly source: Exclude<ClientSource, 'configuration'>;
  /** Whether its jwks_uri may be on a private network (its realm's `private_networks`). */
  readonly allowPrivateNetworks: boolean;
  /** A registered client's secret is kept as its digest only. */
  readonly secretDigest?: Uint8Array | undefined;
}

/** A validated, frozen realm: what every handler receives. */
export interface Realm {
  readonly name: string;
  /** `{base_url}/oauth/{name}`, never derived from request headers. */
  readonly issuer: string;
  readonly config: RealmConfig;
  readonly clients: ReadonlyMap<string, Client>;
  /** How its error codes are spelled on the wire (the realm's `error_codes`). */
  readonly errorDialect: ErrorDialect;
  /** Protected resources keyed by URI. */
  readonly resources: ReadonlyMap<string, ResourceConfig>;
  /** Issuers the jwt-bearer grant trusts, keyed by issuer identifier. */
  readonly trustedIssuers: ReadonlyMap<string, TrustedIssuer>;
  /**
   * The algorithms this realm signs with: its `signing_alg` first, then RS256, which every realm
   * offers for ID tokens (the only other algorithm a client may choose for them). Discovery
   * advertises these for ID tokens, and the JWKS publishes a key of each from its first answer.
   * A `fapi2` realm signs with its `signing_alg` only (FAPI 2.0 SP §5.4).
   */
  readonly signingAlgorithms: readonly SigningAlgorithm[];
  /**
   * Who may send a CORS preflight (which names no client) and read an answer for no client in
   * particular: every configured client's allowed origins. In a realm that takes clients
   * outsiders describe (metadata documents, registration) any origin: such a client can have any
   * origin, and comes without notice; an answer for a client stays readable by its origins only.
   */
  readonly corsOrigins: Origins;
  /**
   * The largest lifetime of anything this realm signs (access, ID and logout tokens): how long a
   * retired key must stay published.
   */
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
    clients: new RealmClients(frozen.clients, (client) => buildClient(client, frozen.signing_alg)),
    corsOrigins: takesOutsideClients(frozen)
      ? ANY_ORIGIN
      : new Set(frozen.clients.flatMap(clientOrigins)),
    // FAPI 2.0 SP §5.4: a fapi2 realm signs with its own algorithm only, never RS256.
    signingAlgorithms: Object.freeze(
      isFapi2(frozen)
        ? [frozen.signing_alg]
        : [...new Set([frozen.signing_alg, ALWAYS_AVAILABLE_ID_TOKEN_ALG])],
    ),
    resources: new Map(frozen.resources.map((resource) => [resource.uri, resource])),
    trustedIssuers: new Map(
      frozen.trusted_issuers.map((trusted) => [trusted.issuer, buildTrustedIssuer(trusted)]),
    ),
    errorDialect: frozen.error_codes,
    longestSignedLifetime: Math.max(
      frozen.access_token_ttl,
      frozen.id_token_ttl,
      LOGOUT_TOKEN_TTL_SECONDS,
    ),
    url: (path: string) => `${issuer}/${path}`,
  });
}

/**
 * A client as handlers use it; `outside` for one whose configuration an outsider wrote (its
 * metadata document, its registration).
 */
export function buildClient(
  config: ClientConfig,
  realmAlg: SigningAlgorithm,
  outside?: OutsideMetadata,
): Client {
  const scopes = splitScope(config.scope);
  return Object.freeze({
    id: config.client_id,
    config,
    source: outside?.source ?? 'configuration',
    scopes: new Set(scopes),
    defaultScopes: config.default_scope === undefined ? scopes : splitScope(config.default_scope),
    grantTypes: new Set(config.grant_types),
    allowedOrigins: new Set(clientOrigins(config)),
    idTokenAlg: config.id_token_signed_response_alg ?? realmAlg,
    secretDigest:
      config.client_secret === undefined
        ? outside?.secretDigest
        : sha256Bytes(config.client_secret),
    previousSecret: previousSecret(config),
    assertionKey: assertionKey(config, outside),
    publicKeys: publicKeys(config, outside),
  });
}

function buildTrustedIssuer(config: TrustedIssuerConfig): TrustedIssuer {
  const { issuer, profile, jwks, jwks_uri } = config;
  return Object.freeze<TrustedIssuer>({
    issuer,
    profile,
    algorithms: config.signing_algs ?? ASYMMETRIC_ASSERTION_ALGORITHMS,
    keys: jwks_uri
      ? { jwksUri: jwks_uri, author: 'operator', allowPrivateNetworks: false }
      : createLocalJWKSet({ keys: [...(jwks?.keys ?? [])] }),
  });
}

/** Whether clients whose metadata an outsider writes may come: documents, registrations. */
const takesOutsideClients = (config: RealmConfig): boolean =>
  config.client_id_metadata_documents?.enabled === true || config.registration !== undefined;

/** Origins whose scripts may read the client's answers: `allowed_origins`, else its redirect URIs'. */
const clientOrigins = (config: ClientConfig): readonly string[] =>
  config.allowed_origins ?? redirectOrigins(config.redirect_uris);

/** The origins of the http(s) redirect URIs; a native app's private-use scheme has none. */
function redirectOrigins(redirectUris: readonly string[]): string[] {
  return redirectUris.flatMap((uri) => {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
  });
}

function previousSecret(config: ClientConfig): PreviousSecret | undefined {
  const { previous_client_secret: secret, previous_client_secret_expires_at: expiresAt } = config;
  if (secret === undefined || expiresAt === undefined) return undefined;
  return { digest: sha256Bytes(secret), hmacKey: encoder.encode(secret), expiresAt };
}

const encoder = new TextEncoder();

function assertionKey(
  config: ClientConfig,
  outside: OutsideMetadata | undefined,
): Client['assertionKey'] {
  const { token_endpoint_auth_method: method, client_secret } = config;
  if (method === 'client_secret_jwt') return encoder.encode(client_secret);
  if (method !== 'private_key_jwt') return undefined;
  return publicKeys(config, outside) ?? createLocalJWKSet({ keys: [] });
}

function publicKeys(
  config: ClientConfig,
  outside: OutsideMetadata | undefined,
): Client['publicKeys'] {
  const { jwks, jwks_uri } = config;
  if (!jwks_uri) return jwks ? createLocalJWKSet({ keys: [...jwks.keys] }) : undefined;
  return outside
    ? { jwksUri: jwks_uri, author: 'outside', allowPrivateNetworks: outside.allowPrivateNetworks }
    : { jwksUri: jwks_uri, author: 'operator', allowPrivateNetworks: false };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
