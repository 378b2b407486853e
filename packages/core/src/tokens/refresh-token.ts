import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { base64urlFromBytes } from '../crypto/base64url.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import { extended } from '../objects/extended.js';
import type { ConsumeResult } from '../store/store.js';

export const REFRESH_TOKEN_NAMESPACE = 'refresh_token';

export interface RefreshTokenRecord extends TokenFamily {
  /** Seconds since the epoch. */
  iat: number;
  /** `iat` in milliseconds, which tells a token issued just after its client's revocation apart. */
  iatMs?: number;
  /** Seconds since the epoch; the same for every token of the grant (see issueRefreshToken). */
  exp: number;
  /** The DPoP key a public client's token is bound to (RFC 9449 §5): its thumbprint. */
  jkt?: string;
}

/**
 * Issues an opaque refresh token for the grant. Stored under a digest and the grant id; a used
 * token's record stays until it expires so that reuse can be recognised (RFC 9700 §4.14.2).
 *
 * The realm's refresh_token_ttl counts from the authorization, not from the last refresh: the
 * first token of a grant expires `refresh_token_ttl` seconds after it was issued, and a rotated
 * token is passed its predecessor's `exp`, so rotation never extends a grant.
 *
 * `token` is a rotated token's successor (see `successorToken`), which every request repeating
 * the rotation within the grace issues again: it is only added, never replaced, so a successor
 * its client has already used stays used. `jkt` binds it to a DPoP key.
 */
export async function issueRefreshToken(
  context: RealmContext,
  grant: TokenFamily,
  exp?: number,
  token?: string,
  jkt?: string,
): Promise<string> {
  const issued = token ?? randomId(32);
  const iatMs = context.now();
  const iat = Math.floor(iatMs / 1000);
  const record: RefreshTokenRecord = extended(grant, {
    iat,
    iatMs,
    exp: exp ?? iat + context.realm.config.refresh_token_ttl,
    ...(jkt === undefined ? {} : { jkt }),
  });
  const id = refreshTokenId(context, issued);
  const options = {
    // A store may refuse a TTL below one second; the record's own exp still rules.
    ttlSeconds: Math.max(record.exp - iat, 1),
    grantId: grant.grantId,
  };
  // Not kept when the grant was revoked meanwhile: the token then does not work.
  if (token === undefined) await context.store.set(REFRESH_TOKEN_NAMESPACE, id, record, options);
  else await context.store.add(REFRESH_TOKEN_NAMESPACE, id, record, options);
  return issued;
}

/**
 * Where the store holds a token's record: under its digest, never the token itself. A request
 * computes it once for all of its lookups (find, then consume).
 */
export const refreshTokenId = (context: RealmContext, token: string): string =>
  `${context.realm.name}/${tokenDigest(token)}`;

/**
 * The record of the token whose `refreshTokenId` is `tokenId`, without using it up, or undefined
 * when unknown, expired or revoked. A token that was already rotated is still found: only
 * consuming it tells reuse apart.
 */
export async function findRefreshToken(
  context: RealmContext,
  tokenId: string,
): Promise<RefreshTokenRecord | undefined> {
  const record = await context.store.get<RefreshTokenRecord>(REFRESH_TOKEN_NAMESPACE, tokenId);
  return record && record.exp > nowSeconds(context) ? record : undefined;
}

/**
 * What the first use of a refresh token left with it when the realm has a rotation grace: when
 * it was, and the salt its successor is derived from.
 */
export interface RotationNote {
  /** Milliseconds since the epoch. */
  at: number;
  salt: string;
}

/** A note for a rotation starting now, or undefined when the realm has no grace. */
export function rotationNote(context: RealmContext): RotationNote | undefined {
  if (context.realm.config.refresh_token_rotation_grace === 0) return undefined;
  return { at: context.now(), salt: randomId(16) };
}

/** Whether a token first used as `note` says may still be presented again (the grace). */
export function withinRotationGrace(context: RealmContext, note: RotationNote | undefined) {
  const graceMs = context.realm.config.refresh_token_rotation_grace * 1000;
  return note !== undefined && graceMs > 0 && context.now() - note.at <= graceMs;
}

/**
 * The successor of a rotated token: derived from the token and its note's salt, so that every
 * request presenting the token within the grace answers the same successor while the store holds
 * neither token nor successor in the clear, only their digests and the salt. Without the salt,
 * which only the store has, a stolen token does not give away its successor.
 */
export function successorToken(token: string, note: RotationNote): string {
  return base64urlFromBytes(hmac(sha256, encoder.encode(token), encoder.encode(note.salt)));
}

const encoder = new TextEncoder();

/**
 * Marks the refresh token of `tokenId` (see `refreshTokenId`) used (rotation): `firstUse` false
 * means it was already rotated. The first use leaves `note` with the record, and every use gets
 * that first note back.
 */
export async function consumeRefreshToken(
  context: RealmContext,
  tokenId: string,
  note?: RotationNote,
): Promise<ConsumeResult<RefreshTokenRecord, RotationNote> | undefined> {
  const consumed = await context.store.consume<RefreshTokenRecord, RotationNote>(
    REFRESH_TOKEN_NAMESPACE,
    tokenId,
    note,
  );
  if (!consumed || consumed.value.exp <= nowSeconds(context)) return undefined;
  return consumed;
}
