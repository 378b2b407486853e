import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import type { ConsumeResult } from '../store/store.js';
import type { UserGrant } from './user-grant.js';

export const REFRESH_TOKEN_NAMESPACE = 'refresh_token';

export interface RefreshTokenRecord extends UserGrant {
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
}

/**
 * Issues an opaque refresh token for the grant, valid for the realm's refresh_token_ttl. Stored
 * under a digest and the grant id; a used token's record stays until it expires so that reuse
 * can be recognised (RFC 9700 §4.14.2).
 */
export async function issueRefreshToken(context: RealmContext, grant: UserGrant): Promise<string> {
  const token = randomId(32);
  const ttl = context.realm.config.refresh_token_ttl;
  const iat = nowSeconds(context);
  const record: RefreshTokenRecord = { ...grant, iat, exp: iat + ttl };
  await context.store.set(REFRESH_TOKEN_NAMESPACE, refreshTokenRecordId(context, token), record, {
    ttlSeconds: ttl,
    grantId: grant.grantId,
  });
  return token;
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

export const refreshTokenRecordId = (context: RealmContext, token: string) =>
  `${context.realm.name}/${tokenDigest(token)}`;
