import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { signRealmJwt } from '../jwt/sign.js';

export const ACCESS_TOKEN_NAMESPACE = 'access_token';
export const ACCESS_TOKEN_JWT_TYPE = 'at+jwt';

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
  nbf: number;
  exp: number;
  grant_id?: string;
}

export interface AccessTokenGrant {
  sub: string;
  clientId: string;
  scopes: readonly string[];
  resource?: string;
  grantId?: string;
}

export interface IssuedAccessToken {
  token: string;
  expiresIn: number;
  record: AccessTokenRecord;
}

/**
 * Issues an access token in the realm's format: an RFC 9068 JWT or an opaque random string. Under
 * the `store` retention policy its record is written before the token is returned, so a token is
 * never handed out that could not be revoked; under `no-store` nothing is written.
 */
export async function issueAccessToken(
  context: RealmContext,
  grant: AccessTokenGrant,
): Promise<IssuedAccessToken> {
  const { realm } = context;
  const ttl = realm.config.access_token_ttl;
  const iat = nowSeconds(context);
  const record: AccessTokenRecord = {
    realm: realm.name,
    jti: randomId(16),
    sub: grant.sub,
    client_id: grant.clientId,
    aud: grant.resource ?? grant.clientId,
    scope: grant.scopes.join(' '),
    iat,
    nbf: iat,
    exp: iat + ttl,
  };
  if (grant.resource !== undefined) record.resource = grant.resource;
  if (grant.grantId !== undefined) record.grant_id = grant.grantId;

  const token =
    realm.config.access_token_format === 'jwt'
      ? await signRealmJwt(context, ACCESS_TOKEN_JWT_TYPE, {
          iss: realm.issuer,
          sub: record.sub,
          aud: record.aud,
          exp: record.exp,
          iat: record.iat,
          nbf: record.nbf,
          jti: record.jti,
          client_id: record.client_id,
          scope: record.scope,
        })
      : randomId(32);
  if (realm.config.access_token_retention_policy === 'store') {
    await context.store.set(
      ACCESS_TOKEN_NAMESPACE,
      accessTokenRecordId(realm.name, token, record.jti),
      record,
      {
        ttlSeconds: ttl,
        ...(grant.grantId === undefined ? {} : { grantId: grant.grantId }),
      },
    );
  }
  return { token, expiresIn: ttl, record };
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
