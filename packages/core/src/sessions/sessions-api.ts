import { nowSeconds, type RealmContext } from '../context.js';
import { logOutSession } from '../logout/log-out.js';
import { isLive, SESSION_NAMESPACE, type SessionRecord, sessionRecordId } from './session.js';
import { userRecords } from './user-index.js';

/** A user's session as the sessions API shows it: never its cookie. */
export interface SessionSummary {
  /** The `sid` claim of the ID tokens and logout tokens of this session. */
  sid: string;
  sub: string;
  /** Seconds since the epoch when the user last actively authenticated. */
  authTime: number;
  acr?: string;
  amr?: string[];
  /** Seconds since the epoch when it ends by itself. */
  expiresAt: number;
  /** The clients that received a code or tokens in this session. */
  clients: string[];
}

/** The user's live sessions in the realm, the most recently authenticated first. */
export async function listSessions(context: RealmContext, sub: string): Promise<SessionSummary[]> {
  const now = nowSeconds(context);
  const records = await userRecords<SessionRecord>(context, sub, SESSION_NAMESPACE);
  return records
    .map((record) => record.value)
    .filter((record) => isLive(record, now))
    .sort((a, b) => b.authTime - a.authTime)
    .map(summary);
}

/** Ends the session with this sid; false when no live session has it. */
export async function endSessionBySid(context: RealmContext, sid: string): Promise<boolean> {
  return (await logOutSession(context, sessionRecordId(context.realm, sid), 'api')) !== undefined;
}

/** Ends every live session of the user; resolves with how many it ended. */
export async function endUserSessions(context: RealmContext, sub: string): Promise<number> {
  const records = await userRecords<SessionRecord>(context, sub, SESSION_NAMESPACE);
  const ended = await Promise.all(records.map(({ id }) => logOutSession(context, id, 'api')));
  return ended.filter((record) => record !== undefined).length;
}

function summary(record: SessionRecord): SessionSummary {
  const shown: SessionSummary = {
    sid: record.sid,
    sub: record.sub,
    authTime: record.authTime,
    expiresAt: record.exp,
    clients: record.grants.map((grant) => grant.clientId),
  };
  if (record.acr !== undefined) shown.acr = record.acr;
  if (record.amr !== undefined) shown.amr = [...record.amr];
  return shown;
}
