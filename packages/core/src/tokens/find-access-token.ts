import { isClientOf } from '../client-metadata/find-client.js';
import type { RealmContext } from '../context.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import { clientRevokedBefore, revokedWithClient } from '../lifecycle/client-revocation.js';
import type { Realm } from '../realms/realm.js';
import {
  ACCESS_TOKEN_JWT_TYPE,
  ACCESS_TOKEN_NAMESPACE,
  type AccessTokenRecord,
  type Actor,
  accessTokenRecordId,
  looksLikeJwt,
} from './access-token.js';

export interface FoundAccessToken {
  record: AccessTokenRecord;
  /** Where its record is stored; absent under the no-store policy, where there is none. */
  recordId?: string;
}

/**
 * Resolves a presented access token, or undefined when it is not a live access token of this
 * realm (unknown, expired, revoked alone or with every token of its client, forged, another kind
 * of token, or its client is no longer one of the realm's: a client removed from a loaded realm
 * takes its tokens with it). Under no-store only the signature and the claims are checked.
 */
export async function findAccessToken(
  context: RealmContext,
  token: string,
): Promise<FoundAccessToken | undefined> {
  const found = await presentedAccessToken(context, token);
  return found && (await isClientOf(context, found.record.client_id)) ? found : undefined;
}

async function presentedAccessToken(
  context: RealmContext,
  token: string,
): Promise<FoundAccessToken | undefined> {
  const { realm } = context;
  const storePolicy = realm.config.access_token_retention_policy === 'store';
  if (!looksLikeJwt(token)) {
    return storePolicy ? stored(context, accessTokenRecordId(realm.name, token)) : undefined;
  }
  const claims = await verifyRealmJwt(context, token, { typ: ACCESS_TOKEN_JWT_TYPE });
  if (!claims || typeof claims.jti !== 'string') return undefined;
  if (storePolicy) {
    const recordId = accessTokenRecordId(realm.name, token, claims.jti);
    const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
    return stored(context, recordId, clientId);
  }
  const record = recordFromClaims(realm, claims);
  return record && { record };
}

/**
 * The stored record, unless expired (store TTLs may lag by up to a second; the record's own exp
 * is authoritative) or revoked with its client. A JWT names its client, whose revocation is then
 * read beside the record.
 */
async function stored(
  context: RealmContext,
  recordId: string,
  claimedClientId?: string,
): Promise<FoundAccessToken | undefined> {
  const [record, claimedRevocation] = await Promise.all([
    context.store.get<AccessTokenRecord>(ACCESS_TOKEN_NAMESPACE, recordId),
    claimedClientId === undefined ? undefined : clientRevokedBefore(context, claimedClientId),
  ]);
  if (!record || record.exp * 1000 <= context.now()) return undefined;
  const revokedBefore =
    record.client_id === claimedClientId
      ? claimedRevocation
      : await clientRevokedBefore(context, record.client_id);
  const { iat, iat_ms: iatMs } = record;
  return revokedWithClient(revokedBefore, { iat, iatMs }) ? undefined : { record, recordId };
}

/** Under no-store the signed claims are all there is; the resource is the audience if declared. */
function recordFromClaims(
  realm: Realm,
  claims: Record<string, unknown>,
): AccessTokenRecord | undefined {
  const { sub, client_id, aud, scope, iat, exp, jti } = claims;
  const nbf = claims.nbf ?? iat;
  if (
    typeof sub !== 'string' ||
    typeof client_id !== 'string' ||
    typeof aud !== 'string' ||
    typeof scope !== 'string' ||
    typeof iat !== 'number' ||
    typeof nbf !== 'number' ||
    typeof exp !== 'number' ||
    typeof jti !== 'string'
  ) {
    return undefined;
  }
  const record: AccessTokenRecord = {
    realm: realm.name,
    jti,
    sub,
    client_id,
    aud,
    scope,
    iat,
    nbf,
    exp,
  };
  if (realm.resources.has(aud)) record.resource = aud;
  const { userinfo_claims, cnf } = claims;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  if (typeof jkt === 'string') record.cnf = { jkt };
  if (Array.isArray(userinfo_claims) && userinfo_claims.every((name) => typeof name === 'string')) {
    record.userinfo_claims = userinfo_claims;
  }
  if (isActor(claims.act)) record.act = claims.act;
  return record;
}

/** An `act` claim as this realm writes it: `sub`, maybe `client_id`, maybe a prior actor. */
function isActor(value: unknown): value is Actor {
  if (typeof value !== 'object' || value === null) return false;
  const { sub, client_id, act } = value as Record<string, unknown>;
  return (
    typeof sub === 'string' &&
    (client_id === undefined || typeof client_id === 'string') &&
    (act === undefined || isActor(act))
  );
}
