import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { TokenFamily } from './token-family.js';

/**
 * Revokes the grant of a replayed code or refresh token (RFC 6749 §4.1.2, RFC 9700 §4.14.2). The
 * store keeps the grant closed afterwards, so the tokens the legitimate request may be writing at
 * this very moment are not kept either.
 */
export async function revokeReplayedFamily(
  context: RealmContext,
  grant: TokenFamily,
  credential: 'authorization_code' | 'refresh_token',
): Promise<void> {
  await context.store.revokeGrant(grant.grantId);
  emitEvent(context, {
    type: 'reuse_detected',
    credential,
    clientId: grant.clientId,
    sub: grant.sub,
    grantId: grant.grantId,
    ...(grant.sid === undefined ? {} : { sid: grant.sid }),
  });
}
