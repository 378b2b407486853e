import { nowSeconds, type RealmContext } from '../context.js';
import { digestMatches, tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { type CookieOptions, readCookies, serializeCookie } from '../http/cookies.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Realm } from '../realms/realm.js';
import { userIndex } from './user-index.js';

export const SESSION_NAMESPACE = 'session';
/**
 * HttpOnly: the browser's key to its session record in this realm. On https the `__Host-` prefix
 * (RFC 6265bis §4.1.3.2) means only this origin, over TLS and without a Domain attribute, can set
 * it: a sibling subdomain cannot plant its own session in the user's browser (which `__Secure-`
 * allowed). `__Host-` requires `Path=/`, so the realm is in the name rather than in the path;
 * each realm reads only its own cookie, and its record ids start with its name.
 */
export const sessionCookieName = (realm: Realm) =>
  `${isHttps(realm) ? '__Host-' : ''}gh_session-${realm.name}`;
/**
 * Readable by the check_session_iframe's script (OIDC Session Management 1.0 §3.1): changes
 * whenever the user signs in or out, which is what relying parties listen for.
 */
export const BROWSER_STATE_COOKIE = 'gh_browser_state';

/** The grant a client's codes and tokens of one session are issued under. */
export interface SessionFamily {
  clientId: string;
  /** The store grant: ending the session revokes it. */
  grantId: string;
  /** The id of the user's consent to the client it is registered with (see consent/consents.ts). */
  consentId: string;
}

/** A signed-in browser: single sign-on, `prompt=none`, `max_age` and `auth_time` read it. */
export interface SessionRecord {
  realm: string;
  sub: string;
  /** Seconds since the epoch when the user actively authenticated. */
  authTime: number;
  acr?: string;
  amr?: string[];
  /** Public session id, the `sid` claim of ID tokens and logout tokens. */
  sid: string;
  /** Digest of the secret half of the cookie; the cookie itself is never stored. */
  secret: string;
  browserState: string;
  /** Seconds since the epoch. */
  exp: number;
  /** One grant per client that received a code or tokens in this session. */
  grants: SessionFamily[];
  /** Set while the session is being ended: it signs nobody in and takes no new grant. */
  ended?: true;
}

export interface Login {
  sub: string;
  authTime: number;
  acr?: string;
  amr?: string[];
}

export interface LoadedSession {
  record: SessionRecord;
  /** The store id of the record. */
  id: string;
  /** The revision it was read at, for compare-and-set updates; undefined when not read yet. */
  revision: number | undefined;
}

/** A session record that still signs its user in. */
export const isLive = (record: SessionRecord, now: number) => !record.ended && record.exp > now;

/** The store id of a realm's session by its sid. */
export const sessionRecordId = (realm: Realm, sid: string) => `${realm.name}/${sid}`;

/**
 * The browser's live session in this realm, or undefined. With `ending`, also its session whose
 * ending failed half-way, so that logging out again can finish it.
 */
export async function loadSession(
  request: Pick<GatehouseRequest, 'headers'>,
  context: RealmContext,
  options: { ending?: boolean } = {},
): Promise<LoadedSession | undefined> {
  const cookie = readCookies(request.headers.cookie).get(sessionCookieName(context.realm));
  // The cookie is `{sid}.{secret}`: the sid finds the record, the secret proves it is the browser's.
  const dot = cookie?.indexOf('.') ?? -1;
  if (cookie === undefined || dot < 1) return undefined;
  const id = sessionRecordId(context.realm, cookie.slice(0, dot));
  const read = await context.store.read<SessionRecord>(SESSION_NAMESPACE, id);
  if (!read) return undefined;
  const ending = options.ending === true && read.value.ended === true;
  if (!ending && !isLive(read.value, nowSeconds(context))) return undefined;
  if (!digestMatches(cookie.slice(dot + 1), read.value.secret)) return undefined;
  return { record: read.value, id, revision: read.revision };
}

/**
 * Starts a session for a login, always under a new cookie secret, so a cookie planted in the
 * browser before the login is worthless afterwards (session fixation). `sameUser`, the browser's
 * session when it is the same user's, goes on under its sid with the new authentication, so
 * relying parties keep the sid they know and the session keeps its grants; the caller ends any
 * other user's session first. Without `sameUser`, or when it changed meanwhile, a new session.
 */
export async function startSession(
  context: RealmContext,
  login: Login,
  sameUser: LoadedSession | undefined,
): Promise<{ session: LoadedSession; cookies: string[] }> {
  const ttl = context.realm.config.session_ttl;
  const secret = randomId(32);
  const renewed = { ...login, secret: tokenDigest(secret), exp: nowSeconds(context) + ttl };
  const cookies = (record: SessionRecord) => sessionCookies(context, record, secret, ttl);

  // A concurrent grant of another client may change the record: read it again then.
  let current = sameUser;
  for (let attempt = 0; current && attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    if (current.revision !== undefined) {
      const { acr, amr, ...kept } = current.record;
      const record: SessionRecord = { ...kept, ...renewed };
      const { id, revision } = current;
      if (await context.store.replace(SESSION_NAMESPACE, id, revision, record, { ttlSeconds: ttl }))
        return { session: { record, id, revision: undefined }, cookies: cookies(record) };
    }
    current = await rereadSession(context, current);
  }
  const record: SessionRecord = {
    realm: context.realm.name,
    sid: randomId(16),
    browserState: randomId(16),
    grants: [],
    ...renewed,
  };
  const id = sessionRecordId(context.realm, record.sid);
  await context.store.set(SESSION_NAMESPACE, id, record, {
    ttlSeconds: ttl,
    grantId: userIndex(context.realm, login.sub),
  });
  return { session: { record, id, revision: undefined }, cookies: cookies(record) };
}

/** Compare-and-set attempts on one session record before giving up on it. */
export const MAX_UPDATE_ATTEMPTS = 4;

/** The session again, or undefined once it ended (or was taken over by another user). */
export async function rereadSession(
  context: RealmContext,
  session: LoadedSession,
): Promise<LoadedSession | undefined> {
  const read = await context.store.read<SessionRecord>(SESSION_NAMESPACE, session.id);
  if (!read || !isLive(read.value, nowSeconds(context)) || read.value.sub !== session.record.sub)
    return undefined;
  return { record: read.value, id: session.id, revision: read.revision };
}

/** Both cookies of a session; `maxAge` 0 clears them. */
function sessionCookies(
  context: RealmContext,
  record: SessionRecord,
  secret: string,
  maxAge: number,
): string[] {
  return [
    serializeCookie(
      sessionCookieName(context.realm),
      `${record.sid}.${secret}`,
      sessionCookieOptions(context.realm, maxAge),
    ),
    serializeCookie(
      BROWSER_STATE_COOKIE,
      record.browserState,
      browserStateCookieOptions(context.realm, maxAge),
    ),
  ];
}

/** The cookies that sign the browser out. */
export function clearedSessionCookies(context: RealmContext): string[] {
  return [
    serializeCookie(sessionCookieName(context.realm), '', sessionCookieOptions(context.realm, 0)),
    serializeCookie(BROWSER_STATE_COOKIE, '', browserStateCookieOptions(context.realm, 0)),
  ];
}

/** On the whole origin, as `__Host-` requires; the name tells realms apart. */
const sessionCookieOptions = (realm: Realm, maxAge: number): CookieOptions =>
  realmCookieOptions(realm, maxAge, { path: '/' });

/** Scoped to the realm's issuer path, so realms never see each other's cookies. */
export function realmCookieOptions(
  realm: Realm,
  maxAge: number | undefined,
  overrides: Partial<CookieOptions> = {},
): CookieOptions {
  return {
    path: new URL(realm.issuer).pathname,
    ...(maxAge === undefined ? {} : { maxAge }),
    httpOnly: true,
    secure: isHttps(realm),
    sameSite: 'Lax',
    ...overrides,
  };
}

/**
 * The check_session_iframe runs inside the relying party's page, a third-party context where
 * only `SameSite=None` cookies are visible; browsers accept those only with `Secure`.
 */
function browserStateCookieOptions(realm: Realm, maxAge: number): CookieOptions {
  return realmCookieOptions(realm, maxAge, {
    httpOnly: false,
    sameSite: isHttps(realm) ? 'None' : 'Lax',
  });
}

export const isHttps = (realm: Realm) => realm.issuer.startsWith('https:');
