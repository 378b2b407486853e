import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import type { ConsumeResult } from '../store/store.js';
import type { UserGrant } from './user-grant.js';

export const REFRESH_TOKEN_NAMESPACE = 'refresh_token';

export interface RefreshTokenRecord extends UserGrant {
  /** Seconds since the epoch. */
  iat: number;
  /** Seconds since the epoch; the same for every token of the grant (see issueRefreshToken). */
  exp: number;
}

/**
 * Issues an opaque refresh token for the grant. Stored under a digest and the grant id; a used
 * token's record stays until it expires so that reuse can be recognised (RFC 9700 §4.14.2).
 *
 * The realm's refresh_token_ttl counts from the authorization, not from the last refresh: the
 * first token of a grant expires `refresh_token_ttl` seconds after it was issued, and a rotated
 * token is passed its predecessor's `exp`, so rotation never extends a grant.
 */
export async function issueRefreshToken(
  context: RealmContext,
  grant: UserGrant,
  exp?: number,
): Promise<string> {
  const token = randomId(32);
  const iat = nowSeconds(context);
  const record: RefreshTokenRecord = {
    ...grant,
    iat,
    exp: exp ?? iat + context.realm.config.refresh_token_ttl,
  };
  await context.store.set(REFRESH_TOKEN_NAMESPACE, refreshTokenRecordId(context, token), record, {
    // A store may refuse a TTL below one second; the record's own exp still rules.
    ttlSeconds: Math.max(record.exp - iat, 1),
    grantId: grant.grantId,
  });
  return token;
}

/**
 * The token's record without using it up, or undefined when unknown, expired or revoked. A token
 * that was already rotated is still found: only consuming it tells reuse apart.
 */
export async function findRefreshToken(
  context: RealmContext,
  token: string,
): Promise<RefreshTokenRecord | undefined> {
  const record = await context.store.get<RefreshTokenRecord>(
    REFRESH_TOKEN_NAMESPACE,
    refreshTokenRecordId(context, token),
  );
  return record && record.exp > nowSeconds(context) ? record : undefined;
}

/** Whether the token's record still exists, expired or not: false once its grant was revoked. */
export async function refreshTokenHeld(context: RealmContext, token: string): Promise<boolean> {
  const key = refreshTokenRecordId(context, token);
  return (await context.store.get(REFRESH_TOKEN_NAMESPACE, key)) !== undefined;
}

/** Marks the refresh token used (rotation): `firstUse` false means it was already rotated. */
export async function consumeRefreshToken(
  context: RealmContext,
  token: string,
): Promise<ConsumeResult<RefreshTokenRecord> | undefined> {
  const consumed = await context.store.consume<RefreshTokenRecord>(
    REFRESH_TOKEN_NAMESPACE,
    refreshTokenRecordId(context, token),
  );
  if (!consumed || consumed.value.exp <= nowSeconds(context)) return undefined;
  return consumed;
}

const refreshTokenRecordId = (context: RealmContext, token: string) =>
  `${context.realm.name}/${tokenDigest(token)}`;
