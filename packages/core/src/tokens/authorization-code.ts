import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { ClosedGrantError } from '../lifecycle/closed-grant.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import { extended } from '../objects/extended.js';
import { consumeIf } from '../store/consume-if.js';
import type { ConditionalConsumeResult } from '../store/store.js';

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

/** Where the store holds a code's record: under its digest, never the code itself. */
export const authorizationCodeId = (context: RealmContext, code: string): string =>
  `${context.realm.name}/${tokenDigest(code)}`;

/** What a token request presents with a code, which the code's record must match to be spent. */
export interface CodeRedemption {
  clientId: string;
  redirectUri: string;
  /** The code challenges the request's `code_verifier` answers (`challengesAnswered`). */
  codeChallenges: readonly (string | null)[];
  /** The thumbprint of the request's DPoP key. */
  dpopJkt: string | undefined;
}

/**
 * Spends the code of `codeId` (see `authorizationCodeId`) if its record was issued to this client
 * and redirect URI, with the request's PKCE challenge (or none without a verifier) and a DPoP
 * key the request proves (or none): one store call, atomic. `matched: false` leaves it unspent,
 * for the caller's checks to say why; `firstUse` is true for exactly one caller, however many
 * race. Undefined for an unknown or expired code (one past its own `exp` that the store still
 * held is spent all the same: it could not be redeemed anyway).
 */
export async function redeemAuthorizationCode(
  context: RealmContext,
  codeId: string,
  redemption: CodeRedemption,
): Promise<ConditionalConsumeResult<AuthorizationCodeRecord> | undefined> {
  const { clientId, redirectUri, codeChallenges, dpopJkt } = redemption;
  const consumed = await consumeIf<AuthorizationCodeRecord>(
    context.store,
    AUTHORIZATION_CODE_NAMESPACE,
    codeId,
    {
      clientId: [clientId],
      redirectUri: [redirectUri],
      codeChallenge: codeChallenges,
      dpopJkt: dpopJkt === undefined ? [null] : [null, dpopJkt],
    },
  );
  if (!consumed || consumed.value.exp <= nowSeconds(context)) return undefined;
  return consumed;
}
