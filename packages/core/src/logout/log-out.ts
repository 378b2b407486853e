import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { SessionEndReason } from '../events/events.js';
import { endSessionRecord } from '../lifecycle/end-session.js';
import type { SessionRecord } from '../sessions/session.js';
import { notifySessionEnded } from './notify-clients.js';

/**
 * Logs a session out: ends it (see `endSessionRecord`), then tells its clients by back-channel
 * logout, in the background. Every way a session ends goes through here: RP-initiated logout,
 * the sessions API, another user signing in on the browser. Returns the ended record (for the
 * front-channel logout page), or undefined when there was no such live session.
 */
export async function logOutSession(
  context: RealmContext,
  id: string,
  reason: SessionEndReason,
): Promise<SessionRecord | undefined> {
  const ended = await endSessionRecord(context, id);
  if (ended) {
    emitEvent(context, {
      type: 'session_ended',
      sub: ended.sub,
      sid: ended.sid,
      reason,
      clients: [...new Set(ended.grants.map((grant) => grant.clientId))],
    });
    void notifySessionEnded(context, ended);
  }
  return ended;
}
