import type { RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { Client } from '../realms/realm.js';
import type { SessionRecord } from '../sessions/session.js';
import { issueLogoutToken, type LoggedOut } from './logout-token.js';

/**
 * Back-channel logout of an ended session: every client that received a code or tokens in it
 * and registered a backchannel_logout_uri gets a logout token naming the session and its user.
 * Runs in the background: the caller's logout never waits for a relying party.
 */
export function notifySessionEnded(context: RealmContext, record: SessionRecord): Promise<void> {
  const clients = [...new Set(record.grants.map((grant) => grant.clientId))];
  return notifyAll(
    context,
    clients.map((clientId) => [clientId, { sub: record.sub, sid: record.sid }]),
  );
}

/**
 * Back-channel logout of a revoked grant: the client's tokens for the user stopped working in
 * every session, so it hears of each live session it had (`sid`), or, when it had none, of the
 * user alone (`sub`: "every session of this user"), unless it only accepts tokens with a `sid`.
 */
export function notifyGrantRevoked(
  context: RealmContext,
  sub: string,
  clientId: string,
  sessions: readonly SessionRecord[],
): Promise<void> {
  const sids = sessions
    .filter((session) => session.grants.some((grant) => grant.clientId === clientId))
    .map((session) => session.sid);
  const client = context.realm.clients.get(clientId);
  if (sids.length === 0 && client?.config.backchannel_logout_session_required) {
    return Promise.resolve();
  }
  const loggedOut: LoggedOut[] = sids.length === 0 ? [{ sub }] : sids.map((sid) => ({ sub, sid }));
  return notifyAll(
    context,
    loggedOut.map((each) => [clientId, each]),
  );
}

async function notifyAll(
  context: RealmContext,
  notices: ReadonlyArray<readonly [string, LoggedOut]>,
): Promise<void> {
  await Promise.all(
    notices.map(async ([clientId, loggedOut]) => {
      const client = context.realm.clients.get(clientId);
      if (client?.config.backchannel_logout_uri === undefined) return;
      try {
        await notify(context, client, client.config.backchannel_logout_uri, loggedOut);
      } catch (error) {
        context.reportError(error);
      }
    }),
  );
}

async function notify(
  context: RealmContext,
  client: Client,
  uri: string,
  loggedOut: LoggedOut,
): Promise<void> {
  const label = `client "${client.id}" of realm "${context.realm.name}"`;
  const failure = await context.backchannel.deliver({ uri, label }, () =>
    issueLogoutToken(context, client, loggedOut),
  );
  if (failure !== undefined) {
    emitEvent(context, {
      type: 'backchannel_logout_failed',
      clientId: client.id,
      ...loggedOut,
      reason: failure,
    });
  }
}
