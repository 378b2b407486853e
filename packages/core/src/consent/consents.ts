import { nowSeconds, type RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import type { Realm } from '../realms/realm.js';
import { userIndex, userRecords } from '../sessions/user-index.js';
import type { Revised } from '../store/store.js';
import { CHANGED, untilSettled } from '../store/transition.js';

/** 0.4 kept scopes alone under `consent`; those records are left to expire (the user is asked again). */
export const CONSENT_NAMESPACE = 'user_consent';
/** A consent lapses a year after it was last given or in use (see `keepConsent`). */
const CONSENT_TTL_SECONDS = 365 * 86_400;
/** Compare-and-set attempts on one consent before `keepConsent` gives up (it is best-effort). */
const MAX_KEEP_ATTEMPTS = 4;

/**
 * A user's consent to a client, the "grant" of the sessions-and-grants API: which scopes, since
 * when. The codes and tokens the client gets for the user are issued under store grants that are
 * registered with it (`registerGrant`), so revoking the consent revokes all of them.
 */
export interface ConsentRecord {
  /** New whenever the consent is given after a revocation: the registrations follow it. */
  id: string;
  sub: string;
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch when the user first gave it. */
  createdAt: number;
  /**
   * Seconds since the epoch until which a grant registered with it may have live tokens: the
   * consent lives at least as long (see `keepConsent`).
   */
  keepUntil?: number;
}

/** The user's consent to the client, or undefined. */
export async function readConsent(
  context: RealmContext,
  sub: string,
  clientId: string,
): Promise<Revised<ConsentRecord> | undefined> {
  return context.store.read<ConsentRecord>(
    CONSENT_NAMESPACE,
    consentRecordId(context.realm, sub, clientId),
  );
}

/** Every consent the user has given in the realm. */
export async function listConsents(context: RealmContext, sub: string): Promise<ConsentRecord[]> {
  const records = await userRecords<ConsentRecord>(context, sub, CONSENT_NAMESPACE);
  return records.map((record) => record.value);
}

/**
 * Makes the user's consent to the client cover `scopes` and returns it: adds them to an existing
 * consent or gives a new one. `renew` (the user just consented) also restarts its year; `known`,
 * a consent read in this request, saves reading it again when it already covers the scopes.
 */
export async function giveConsent(
  context: RealmContext,
  sub: string,
  clientId: string,
  scopes: readonly string[],
  { renew = false, known }: { renew?: boolean; known?: Revised<ConsentRecord> } = {},
): Promise<ConsentRecord> {
  const { store, realm } = context;
  const recordId = consentRecordId(realm, sub, clientId);
  let unread = known;
  return untilSettled(async () => {
    const current = unread ?? (await readConsent(context, sub, clientId));
    unread = undefined;
    if (!current) {
      const given: ConsentRecord = {
        id: randomId(16),
        sub,
        clientId,
        scopes: [...new Set(scopes)],
        createdAt: nowSeconds(context),
      };
      const options = { ttlSeconds: CONSENT_TTL_SECONDS, grantId: userIndex(realm, sub) };
      return (await store.add(CONSENT_NAMESPACE, recordId, given, options)) ? given : CHANGED;
    }
    const covered = scopes.every((scope) => current.value.scopes.includes(scope));
    if (covered && !renew) return current.value;
    const extended = {
      ...current.value,
      scopes: [...new Set([...current.value.scopes, ...scopes])],
    };
    const options = { ttlSeconds: consentTtl(context, extended) };
    return (await store.replace(CONSENT_NAMESPACE, recordId, current.revision, extended, options))
      ? extended
      : CHANGED;
  }, 'the consent');
}

/**
 * Withdraws the user's consent to the client: the next authorization asks again, and every store
 * grant registered with it is revoked, so every code, access token and refresh token the client
 * holds for the user stops working. Returns the consent, or undefined when there was none.
 */
export async function revokeConsent(
  context: RealmContext,
  sub: string,
  clientId: string,
): Promise<ConsentRecord | undefined> {
  const read = await readConsent(context, sub, clientId);
  if (!read) return undefined;
  await context.store.delete(CONSENT_NAMESPACE, consentRecordId(context.realm, sub, clientId));
  const registered = await context.store.revokeGrant(consentIndex(read.value.id));
  const prefix = `${context.realm.name}/`;
  await Promise.all(
    registered
      .filter((key) => key.namespace === REGISTRATION_NAMESPACE && key.id.startsWith(prefix))
      .map((key) => context.store.revokeGrant(key.id.slice(prefix.length))),
  );
  return read.value;
}

/** A store grant registered with the user's consent to a client. */
export interface Registration {
  sub: string;
  clientId: string;
  consentId: string;
  grantId: string;
}

/**
 * Registers a store grant with the consent, for `ttlSeconds` (as long as the grant's tokens may
 * live): revoking the consent revokes it. False when the consent was revoked meanwhile.
 */
export async function registerGrant(
  context: RealmContext,
  consent: ConsentRecord,
  grantId: string,
  ttlSeconds: number,
): Promise<boolean> {
  const registered = {
    sub: consent.sub,
    clientId: consent.clientId,
    consentId: consent.id,
    grantId,
  };
  if (!(await context.store.add(...registration(context, registered, ttlSeconds)))) return false;
  await keepConsent(context, registered, ttlSeconds);
  return true;
}

/**
 * Keeps a registered store grant registered for `ttlSeconds` from now, when its tokens may live
 * longer than it was first registered for. Writes nothing when the consent was revoked meanwhile
 * (its registrations' grant is closed).
 */
export async function extendRegistration(
  context: RealmContext,
  registered: Registration,
  ttlSeconds: number,
): Promise<void> {
  await context.store.set(...registration(context, registered, ttlSeconds));
  await keepConsent(context, registered, ttlSeconds);
}

/**
 * Keeps the consent at least as long as a grant registered with it, and restarts its year: a
 * client getting tokens in a new session is the consent in use, and revoking the consent is what
 * reaches the grant's tokens, so it must not lapse before them. Nothing when the consent was
 * revoked or given again meanwhile.
 */
async function keepConsent(
  context: RealmContext,
  { sub, clientId, consentId }: Registration,
  ttlSeconds: number,
): Promise<void> {
  const recordId = consentRecordId(context.realm, sub, clientId);
  for (let attempt = 0; attempt < MAX_KEEP_ATTEMPTS; attempt++) {
    const current = await readConsent(context, sub, clientId);
    if (current?.value.id !== consentId) return;
    const keepUntil = Math.max(current.value.keepUntil ?? 0, nowSeconds(context) + ttlSeconds);
    const kept = { ...current.value, keepUntil };
    const options = { ttlSeconds: consentTtl(context, kept) };
    if (await context.store.replace(CONSENT_NAMESPACE, recordId, current.revision, kept, options))
      return;
  }
}

/** A year from now, or longer while a grant registered with the consent may have live tokens. */
const consentTtl = (context: RealmContext, consent: ConsentRecord) =>
  Math.max(CONSENT_TTL_SECONDS, (consent.keepUntil ?? 0) - nowSeconds(context));

const registration = (
  context: RealmContext,
  { consentId, clientId, grantId }: Registration,
  ttlSeconds: number,
) =>
  [
    REGISTRATION_NAMESPACE,
    `${context.realm.name}/${grantId}`,
    { clientId },
    { ttlSeconds, grantId: consentIndex(consentId) },
  ] as const;

const REGISTRATION_NAMESPACE = 'consent_grant';

/** The store grant the registrations of one consent are written under. */
const consentIndex = (consentId: string) => `consent:${consentId}`;

export const consentRecordId = (realm: Realm, sub: string, clientId: string) =>
  `${realm.name}/${encodeURIComponent(sub)}/${encodeURIComponent(clientId)}`;
