import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// A form's token is an HMAC of this browser's random cookie and the interaction id: another site
// can neither read the cookie nor reuse a token made for another browser or interaction.
const csrfKey = randomBytes(32);
const BROWSER_COOKIE = 'app_browser';
const sign = (browser: string, interaction: string) =>
  createHmac('sha256', csrfKey).update(`${browser} ${interaction}`).digest('base64url');

/**
 * The token for a form of `interaction`, from the request's `Cookie` header; with the
 * `Set-Cookie` value to send when this browser has no cookie yet.
 */
export function csrfToken(
  cookieHeader: string | undefined,
  interaction: string,
  secure: boolean,
): { token: string; setCookie?: string } {
  const browser = readCookie(cookieHeader, BROWSER_COOKIE);
  if (browser) return { token: sign(browser, interaction) };
  const fresh = randomBytes(32).toString('base64url');
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  return {
    token: sign(fresh, interaction),
    setCookie: `${BROWSER_COOKIE}=${fresh}; ${attributes}`,
  };
}

/** Whether `given` is this browser's token for `interaction`; constant-time. */
export function validCsrf(
  cookieHeader: string | undefined,
  interaction: string,
  given: string,
): boolean {
  const browser = readCookie(cookieHeader, BROWSER_COOKIE);
  if (!browser) return false;
  const presented = Buffer.from(given);
  const expected = Buffer.from(sign(browser, interaction));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(';') ?? []) {
    const [key, value] = pair.trim().split('=');
    if (key === name) return value;
  }
  return undefined;
}
