import { type ConsentRecord, extendRegistration, registerGrant } from '../consent/consents.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import {
  type LoadedSession,
  rereadSession,
  SESSION_NAMESPACE,
  type SessionFamily,
  type SessionRecord,
} from '../sessions/session.js';
import { CHANGED, untilSettled } from '../store/transition.js';

/** The session ended while an authorization was using it. */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended');
    this.name = 'SessionEndedError';
  }
}

/** The user's consent was revoked while an authorization was using it. */
export class ConsentRevokedError extends Error {
  constructor() {
    super('the consent was revoked');
    this.name = 'ConsentRevokedError';
  }
}

/**
 * The store grant a client's codes and tokens of this session are issued under: one per client
 * and session, so that ending the session revokes what each client got in it, and registered
 * with the user's consent to the client, so that revoking the consent does too. A grant is
 * reused while it belongs to the same consent; `replacing` names one found revoked (a replayed
 * code revokes its grant), which a new grant then takes the place of.
 */
export async function sessionFamily(
  context: RealmContext,
  session: LoadedSession,
  consent: ConsentRecord,
  replacing?: string,
): Promise<{ grantId: string; session: LoadedSession }> {
  let current: LoadedSession | undefined = session;
  return untilSettled(async () => {
    if (!current) throw new SessionEndedError();
    const others = current.record.grants.filter((each) => each.clientId !== consent.clientId);
    const existing = current.record.grants.find((each) => each.clientId === consent.clientId);
    if (existing && existing.consentId === consent.id && existing.grantId !== replacing)
      return { grantId: existing.grantId, session: current };
    if (current.revision !== undefined) {
      const added: SessionFamily = {
        clientId: consent.clientId,
        grantId: randomId(16),
        consentId: consent.id,
      };
      const record = { ...current.record, grants: [...others, added] };
      const [registered, stored] = await Promise.all([
        registerGrant(context, consent, added.grantId, grantLifetime(context, record.exp)),
        context.store.replace(SESSION_NAMESPACE, current.id, current.revision, record),
      ]);
      if (!registered) {
        // The session may hold the grant now: closing it makes the next authorization replace it.
        if (stored) await context.store.revokeGrant(added.grantId);
        throw new ConsentRevokedError();
      }
      if (stored)
        return { grantId: added.grantId, session: { ...current, record, revision: undefined } };
    }
    current = await rereadSession(context, current);
    return CHANGED;
  }, 'the session');
}

/**
 * Registers the grants of a session its user renewed by signing in again for the session's new
 * lifetime. Registered for the session as it was, a grant would drop out of its consent's
 * registrations while codes issued later in the session, and their refresh tokens, still live
 * under it, and revoking the consent would leave those working.
 */
export async function extendSessionFamilies(
  context: RealmContext,
  session: SessionRecord,
): Promise<void> {
  const ttlSeconds = grantLifetime(context, session.exp);
  await Promise.all(
    session.grants.map((grant) =>
      extendRegistration(context, { ...grant, sub: session.sub }, ttlSeconds),
    ),
  );
}

/**
 * How long a session's grant may have live tokens: codes are issued under it until the session
 * ends, and the last refresh token lives `refresh_token_ttl` after that, its last access token
 * `access_token_ttl` more.
 */
function grantLifetime(context: RealmContext, sessionExp: number): number {
  const { refresh_token_ttl, access_token_ttl } = context.realm.config;
  return Math.max(sessionExp - nowSeconds(context), 1) + refresh_token_ttl + access_token_ttl;
}
