import type { RealmContext } from '../context.js';
import { appendQuery } from '../http/redirect.js';
import type { SessionRecord } from '../sessions/session.js';

/**
 * The frontchannel_logout_uri of each client of the ended session that registered one, as its
 * logout page loads it (Front-Channel Logout 1.0 §2): with `iss` and `sid` for a client that
 * requires them, as registered otherwise.
 */
export function frontchannelLogoutUris(context: RealmContext, record: SessionRecord): string[] {
  const { realm } = context;
  const clientIds = new Set(record.grants.map((grant) => grant.clientId));
  return [...clientIds].flatMap((clientId) => {
    const config = realm.clients.get(clientId)?.config;
    const uri = config?.frontchannel_logout_uri;
    if (uri === undefined) return [];
    if (!config?.frontchannel_logout_session_required) return [uri];
    const session = new URLSearchParams({ iss: realm.issuer, sid: record.sid });
    return [appendQuery(uri, session.toString())];
  });
}
