import type { RealmContext } from '../context.js';

/**
 * Revokes the grant of a replayed code or refresh token (RFC 6749 §4.1.2, RFC 9700 §4.14.2), in
 * two passes. The legitimate request may be writing its new tokens while the first pass runs:
 * a store whose revocation is not one atomic step (Redis: claim, then delete) can miss those, and
 * that request may still find its consumed record in place when it checks. Whatever it wrote
 * before the second pass goes with it; whatever it writes later, it revokes itself, because it
 * then finds its record gone.
 */
export async function revokeReplayedGrant(context: RealmContext, grantId: string): Promise<void> {
  await context.store.revokeGrant(grantId);
  await context.store.revokeGrant(grantId);
}
