import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { CibaPingTarget, CibaRequestRecord } from './ciba-request.js';

/** A CIBA ping did not reach its client; the message names the client, never a token. */
export class CibaPingError extends Error {
  override name = 'CibaPingError';
}

/**
 * CIBA Core 1.0 §10.2: tells a ping client that the user answered its request, by POSTing
 * `{"auth_req_id"}` with the client's `client_notification_token` as bearer token. In the
 * background, through the provider's back-channel delivery (each attempt bounded in time, a few
 * attempts with a growing backoff, bounded places): the decision never waits for the client.
 * A ping that fails in the end is reported to `onError` and as a `ciba_ping_failed` event; the
 * client can still poll.
 */
export function pingClient(
  context: RealmContext,
  authReqId: string,
  request: CibaRequestRecord,
  ping: CibaPingTarget,
): void {
  const startedAt = context.now();
  const notice = {
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${ping.clientNotificationToken}`,
    },
    body: JSON.stringify({ auth_req_id: authReqId }),
  };
  context.backchannel
    .post(ping.endpoint, () => Promise.resolve(notice))
    .then((reason) => {
      const outcome = {
        clientId: request.clientId,
        sub: request.sub,
        decision: request.state === 'approved' ? ('approved' as const) : ('denied' as const),
        durationMs: context.now() - startedAt,
      };
      if (reason === undefined) {
        emitEvent(context, { type: 'ciba_ping_sent', ...outcome });
        return;
      }
      context.reportError(
        new CibaPingError(
          `CIBA ping to client "${request.clientId}" of realm "${context.realm.name}" failed: ${reason}`,
        ),
      );
      emitEvent(context, { type: 'ciba_ping_failed', ...outcome, reason });
    })
    .catch(context.reportError);
}
