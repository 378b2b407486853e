import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { ClosedGrantError } from '../lifecycle/closed-grant.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import { extended } from '../objects/extended.js';
import type { ConsumeResult } from '../store/store.js';

export const AUTHORIZATION_CODE_NAMESPACE = 'authorization_code';

/** Everything the token endpoint must check when the code comes back (RFC 6749 §4.1.3). */
export interface AuthorizationCodeRecord extends TokenFamily {
  redirectUri: string;
  /** The S256 challenge (RFC 7636), when the request carried one. */
  codeChallenge?: string;
  nonce?: string;
  /** The DPoP key the authorization request named (`dpop_jkt`, RFC 9449 §10). */
  dpopJkt?: string;
  /** Seconds since the epoch; the record's own expiry is authoritative over the store TTL. */
  exp: number;
}

/**
 * Issues a one-time authorization code. The store holds it under a digest, never in the clear,
 * and under the grant id so a replay can revoke everything issued from it. `ClosedGrantError`
 * when that grant was revoked.
 */
export async function issueAuthorizationCode(
  context: RealmContext,
  details: Omit<AuthorizationCodeRecord, 'exp'>,
): Promise<string> {
  const code = randomId(32);
  const ttl = context.realm.config.authorization_code_ttl;
  const record: AuthorizationCodeRecord = extended(details, { exp: nowSeconds(context) + ttl });
  const kept = await context.store.add(
    AUTHORIZATION_CODE_NAMESPACE,
    authorizationCodeId(context, code),
    record,
    {
      ttlSeconds: ttl,
      grantId: details.grantId,
    },
  );
  if (!kept) throw new ClosedGrantError();
  return code;
}

/**
 * Where the store holds a code's record: under its digest, never the code itself. A request
 * computes it once for both of its lookups (find, then consume).
 */
export const authorizationCodeId = (context: RealmContext, code: string): string =>
  `${context.realm.name}/${tokenDigest(code)}`;

/**
 * The record of the code whose `authorizationCodeId` is `codeId`, without spending it: what the
 * token endpoint checks before it counts the request as a use of the code. Undefined for an
 * unknown or expired code.
 */
export async function findAuthorizationCode(
  context: RealmContext,
  codeId: string,
): Promise<AuthorizationCodeRecord | undefined> {
  const record = await context.store.get<AuthorizationCodeRecord>(
    AUTHORIZATION_CODE_NAMESPACE,
    codeId,
  );
  return record && record.exp > nowSeconds(context) ? record : undefined;
}

/**
 * Marks the code of `codeId` (see `authorizationCodeId`) used and returns its record: `firstUse`
 * is true for exactly one caller, however many race. Undefined for an unknown or expired code.
 */
export async function consumeAuthorizationCode(
  context: RealmContext,
  codeId: string,
): Promise<ConsumeResult<AuthorizationCodeRecord> | undefined> {
  const consumed = await context.store.consume<AuthorizationCodeRecord>(
    AUTHORIZATION_CODE_NAMESPACE,
    codeId,
  );
  if (!consumed || consumed.value.exp <= nowSeconds(context)) return undefined;
  return consumed;
}
