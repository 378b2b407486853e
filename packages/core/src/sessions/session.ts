import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { type CookieOptions, readCookies, serializeCookie } from '../http/cookies.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Realm } from '../realms/realm.js';

export const SESSION_NAMESPACE = 'session';
/**
 * HttpOnly: the browser's key to its session record. On https the `__Secure-` prefix stops a
 * sibling subdomain on plain http from planting one (RFC 6265bis §4.1.3.1).
 */
export const sessionCookieName = (realm: Realm) =>
  isHttps(realm) ? '__Secure-gh_session' : 'gh_session';
/**
 * Readable by the check_session_iframe's script (OIDC Session Management 1.0 §3.1): changes
 * whenever the user signs in or out, which is what relying parties listen for.
 */
export const BROWSER_STATE_COOKIE = 'gh_browser_state';

/** A signed-in browser: single sign-on, `prompt=none`, `max_age` and `auth_time` read it. */
export interface SessionRecord {
  realm: string;
  sub: string;
  /** Seconds since the epoch when the user actively authenticated. */
  authTime: number;
  acr?: string;
  amr?: string[];
  /** Public session id, the `sid` claim of ID tokens; the cookie value itself is never shown. */
  sid: string;
  browserState: string;
  /** Seconds since the epoch. */
  exp: number;
}

export interface Login {
  sub: string;
  authTime: number;
  acr?: string;
  amr?: string[];
}

export interface LoadedSession {
  record: SessionRecord;
  /** The store id of the record (a digest of the cookie). */
  id: string;
}

/** The browser's live session in this realm, or undefined. */
export async function loadSession(
  request: GatehouseRequest,
  context: RealmContext,
): Promise<LoadedSession | undefined> {
  const cookie = readCookies(request.headers.cookie).get(sessionCookieName(context.realm));
  if (cookie === undefined || cookie === '') return undefined;
  const id = sessionRecordId(context.realm, cookie);
  const record = await context.store.get<SessionRecord>(SESSION_NAMESPACE, id);
  if (!record || record.exp <= nowSeconds(context)) return undefined;
  return { record, id };
}

/**
 * Starts a session for a login. Always under a new cookie value, so a session id planted in the
 * browser before the login is worthless afterwards (session fixation). The previous session of
 * the browser, if any, is ended.
 */
export async function startSession(
  context: RealmContext,
  login: Login,
  previous: LoadedSession | undefined,
): Promise<{ record: SessionRecord; cookies: string[] }> {
  if (previous) await context.store.delete(SESSION_NAMESPACE, previous.id);
  const ttl = context.realm.config.session_ttl;
  const cookie = randomId(32);
  const record: SessionRecord = {
    realm: context.realm.name,
    ...login,
    sid: randomId(16),
    browserState: randomId(16),
    exp: nowSeconds(context) + ttl,
  };
  await context.store.set(SESSION_NAMESPACE, sessionRecordId(context.realm, cookie), record, {
    ttlSeconds: ttl,
  });
  return {
    record,
    cookies: [
      serializeCookie(
        sessionCookieName(context.realm),
        cookie,
        realmCookieOptions(context.realm, ttl),
      ),
      serializeCookie(
        BROWSER_STATE_COOKIE,
        record.browserState,
        browserStateCookieOptions(context.realm, ttl),
      ),
    ],
  };
}

/** Ends the session (RP-initiated logout): the record goes and both cookies are cleared. */
export async function endSession(
  context: RealmContext,
  session: LoadedSession | undefined,
): Promise<string[]> {
  if (session) await context.store.delete(SESSION_NAMESPACE, session.id);
  return [
    serializeCookie(sessionCookieName(context.realm), '', realmCookieOptions(context.realm, 0)),
    serializeCookie(BROWSER_STATE_COOKIE, '', browserStateCookieOptions(context.realm, 0)),
  ];
}

/** Cookies are scoped to the realm's issuer path, so realms never see each other's sessions. */
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

const sessionRecordId = (realm: Realm, cookie: string) => `${realm.name}/${tokenDigest(cookie)}`;
