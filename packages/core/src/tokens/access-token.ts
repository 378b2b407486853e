import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { signRealmJwt } from '../jwt/sign.js';

export const ACCESS_TOKEN_NAMESPACE = 'access_token';
export const ACCESS_TOKEN_JWT_TYPE = 'at+jwt';

/**
 * Who acts for the token's subject (RFC 8693 §4.1): the current actor, and in `act` the one
 * before it, when a delegated token was exchanged again.
 */
export interface Actor {
  sub: string;
  client_id?: string;
  act?: Actor;
}

/** Everything known about an access token: its stored record, or its JWT claims under no-store. */
export interface AccessTokenRecord {
  realm: string;
  jti: string;
  /** The user, or the client itself for client credentials. */
  sub: string;
  client_id: string;
  /** The resource URI, or the client_id for a token issued without a resource. */
  aud: string;
  resource?: string;
  scope: string;
  iat: number;
  /** `iat` in milliseconds, which tells a token issued just after its client's revocation apart. */
  iat_ms?: number;
  nbf: number;
  exp: number;
  grant_id?: string;
  /** Claims userinfo releases beyond those of `scope`, asked for by name (OIDC Core 1.0 §5.5). */
  userinfo_claims?: string[];
  /** A delegated token's actor (token exchange). */
  act?: Actor;
  /** The DPoP key the token is bound to (RFC 9449 §6): its RFC 7638 thumbprint. */
  cnf?: { jkt: string };
}

export interface AccessTokenGrant {
  sub: string;
  clientId: string;
  scopes: readonly string[];
  resource?: string;
  grantId?: string;
  userinfoClaims?: readonly string[];
  act?: Actor;
  /** Seconds since the epoch past which the token must not live: what it was exchanged from. */
  notAfter?: number;
  /** Binds the token to the DPoP key of this thumbprint. */
  dpopJkt?: string;
}

export interface IssuedAccessToken {
  token: string;
  expiresIn: number;
  record: AccessTokenRecord;
  /** Its grant was revoked: the store did not keep the record, so the token does not work. */
  grantClosed: boolean;
}

/**
 * Issues an access token in the realm's format: an RFC 9068 JWT or an opaque random string. Under
 * the `store` retention policy its record is written before the token is returned, so a token is
 * never handed out that could not be revoked (nor kept when its grant was revoked meanwhile:
 * `grantClosed`); under `no-store` nothing is written.
 */
export async function issueAccessToken(
  context: RealmContext,
  grant: AccessTokenGrant,
): Promise<IssuedAccessToken> {
  const { realm } = context;
  const iatMs = context.now();
  const iat = Math.floor(iatMs / 1000);
  const ttl = Math.min(realm.config.access_token_ttl, (grant.notAfter ?? Infinity) - iat);
  const record: AccessTokenRecord = {
    realm: realm.name,
    jti: randomId(16),
    sub: grant.sub,
    client_id: grant.clientId,
    aud: grant.resource ?? grant.clientId,
    scope: grant.scopes.join(' '),
    iat,
    iat_ms: iatMs,
    nbf: iat,
    exp: iat + ttl,
  };
  if (grant.resource !== undefined) record.resource = grant.resource;
  if (grant.grantId !== undefined) record.grant_id = grant.grantId;
  if (grant.userinfoClaims?.length) record.userinfo_claims = [...grant.userinfoClaims];
  if (grant.act !== undefined) record.act = grant.act;
  if (grant.dpopJkt !== undefined) record.cnf = { jkt: grant.dpopJkt };

  // The record's id is known before the signature (a JWT's jti, an opaque token's digest), so
  // the write goes out while the token is signed: one wait instead of two (docs/performance.md).
  // A failed signature leaves a record no token refers to, which expires with its TTL.
  const opaque = realm.config.access_token_format === 'jwt' ? undefined : randomId(32);
  const [token, grantClosed] = await Promise.all([
    opaque ??
      signRealmJwt(context, ACCESS_TOKEN_JWT_TYPE, {
        iss: realm.issuer,
        sub: record.sub,
        aud: record.aud,
        exp: record.exp,
        iat: record.iat,
        nbf: record.nbf,
        jti: record.jti,
        client_id: record.client_id,
        scope: record.scope,
        // Under no-store the token is all userinfo will see of the grant.
        ...(record.userinfo_claims ? { userinfo_claims: record.userinfo_claims } : {}),
        ...(record.act ? { act: record.act } : {}),
        ...(record.cnf ? { cnf: record.cnf } : {}),
      }),
    writeRecord(context, record, ttl, opaque),
  ]);
  return { token, expiresIn: ttl, record, grantClosed };
}

/** Under the `store` policy, records the token; true when its grant was closed and nothing was kept. */
async function writeRecord(
  context: RealmContext,
  record: AccessTokenRecord,
  ttlSeconds: number,
  opaqueToken: string | undefined,
): Promise<boolean> {
  const { realm, store } = context;
  if (realm.config.access_token_retention_policy !== 'store') return false;
  const id =
    opaqueToken === undefined
      ? `${realm.name}/${record.jti}`
      : accessTokenRecordId(realm.name, opaqueToken);
  if (record.grant_id === undefined) {
    await store.set(ACCESS_TOKEN_NAMESPACE, id, record, { ttlSeconds });
    return false;
  }
  const kept = await store.add(ACCESS_TOKEN_NAMESPACE, id, record, {
    ttlSeconds,
    grantId: record.grant_id,
  });
  return !kept;
}

/** `token_type` of a token response and of introspection (RFC 9449 §5, RFC 6750). */
export const accessTokenType = (record: AccessTokenRecord) => (record.cnf ? 'DPoP' : 'Bearer');

/**
 * A client-credentials token: the client's own, with no user behind it (its `sub` is the
 * client_id). A user's token is issued under a grant, though under no-store its claims do not
 * say which, so there a `sub` other than the client_id tells it apart.
 */
export function isClientsOwnToken(record: AccessTokenRecord): boolean {
  return record.grant_id === undefined && record.sub === record.client_id;
}

/** Exactly two dots, counted without splitting: this runs for every token issued and looked up. */
export function looksLikeJwt(token: string): boolean {
  const first = token.indexOf('.');
  const second = first === -1 ? -1 : token.indexOf('.', first + 1);
  return second !== -1 && token.indexOf('.', second + 1) === -1;
}

/** JWT records are keyed by jti; opaque ones by a digest, so the store never holds the token. */
export function accessTokenRecordId(realmName: string, token: string, jti?: string): string {
  return `${realmName}/${looksLikeJwt(token) ? jti : tokenDigest(token)}`;
}
