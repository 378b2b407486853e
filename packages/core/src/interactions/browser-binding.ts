import { randomId } from '../crypto/random.js';
import { readCookies, serializeCookie } from '../http/cookies.js';
import type { Realm } from '../realms/realm.js';
import { isHttps } from '../sessions/session.js';

const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * A random id the browser keeps for its whole visit, in an HttpOnly cookie on the whole origin so
 * that the host's login and consent pages receive it too. Interactions are bound to it: a login
 * link sent to someone else, or a resume link taken elsewhere, is worthless in another browser.
 * `__Host-` on https: only this origin, over TLS, can set it.
 */
export const browserCookieName = (realm: Realm) =>
  isHttps(realm) ? '__Host-gh_browser' : 'gh_browser';

/** The browser id a request carries, or undefined. */
export function browserIdOf(cookieHeader: string | undefined, realm: Realm): string | undefined {
  const id = readCookies(cookieHeader).get(browserCookieName(realm));
  return id !== undefined && BROWSER_ID.test(id) ? id : undefined;
}

/** The request's browser id, or a new one with the cookie that gives it to the browser. */
export function ensureBrowserId(
  cookieHeader: string | undefined,
  realm: Realm,
): { id: string; cookie?: string } {
  const existing = browserIdOf(cookieHeader, realm);
  if (existing !== undefined) return { id: existing };
  const id = randomId(32);
  const cookie = serializeCookie(browserCookieName(realm), id, {
    path: '/',
    httpOnly: true,
    secure: isHttps(realm),
    sameSite: 'Lax',
  });
  return { id, cookie };
}
