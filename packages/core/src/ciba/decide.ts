import { nowSeconds, type RealmContext } from '../context.js';
import { CHANGED, untilSettled } from '../store/transition.js';
import type { CibaApproval } from './authenticator-push.js';
import { readCibaRequest, replaceCibaRequest } from './ciba-request.js';
import { pingClient } from './ping.js';

export type CibaDecision = { approve: CibaApproval } | { deny: true };

/**
 * The user's answer from the authenticator: moves a pending, unexpired request to approved or
 * denied. False when the request is unknown or no longer pending. A poll racing the decision
 * only changes `lastPollAtMs`, so the decision is re-read and retried until one of them holds.
 * A ping client is then told, in the background (ping.ts): the decision does not wait for it.
 */
export function decideCibaRequest(
  context: RealmContext,
  authReqId: string,
  decision: CibaDecision,
): Promise<boolean> {
  return untilSettled(async () => {
    const read = await readCibaRequest(context, authReqId);
    const now = nowSeconds(context);
    if (read?.value.state !== 'pending' || now >= read.value.expiresAt) return false;
    const next =
      'deny' in decision
        ? { ...read.value, state: 'denied' as const }
        : {
            ...read.value,
            state: 'approved' as const,
            approval: {
              authTime: decision.approve.authTime ?? now,
              ...(decision.approve.amr ? { amr: [...decision.approve.amr] } : {}),
              ...(decision.approve.acr !== undefined ? { acr: decision.approve.acr } : {}),
            },
          };
    if (!(await replaceCibaRequest(context, authReqId, read.revision, next))) return CHANGED;
    if (next.ping) pingClient(context, authReqId, next, next.ping);
    return true;
  }, 'the CIBA request');
}
