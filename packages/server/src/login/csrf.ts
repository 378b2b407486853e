import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { html, type SafeHtml } from '../pages/layout.js';

export const CSRF_FIELD = 'csrf_token';
/**
 * The cookie of the browser's key, on `Path=/` and shared by the realms (each token is bound to
 * its realm and interaction). On https the `__Host-` prefix (RFC 6265bis §4.1.3.2) means only
 * this origin, over TLS, can set it: no sibling subdomain can plant a key it knows.
 */
export const csrfCookieName = (secure: boolean) => (secure ? '__Host-gh_csrf' : 'gh_csrf');

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface BrowserKey {
  value: string;
  /** A `Set-Cookie` value when the browser had no valid key yet. */
  setCookie?: string;
}

/**
 * Tokens of the login and consent forms (double-submit, signed): a random key lives in an
 * HttpOnly cookie of the browser, and the form carries HMAC(secret, realm, interaction, key).
 * A form posted from another site has no token; a token copied from another browser or for
 * another interaction does not match this browser's key or this interaction.
 */
export class CsrfTokens {
  readonly #key: Buffer;

  /** `secret` is the config's cookie_secret; without one, a random key that lasts the process. */
  constructor(secret: string | undefined) {
    this.#key = createHmac('sha256', secret ?? randomBytes(32))
      .update('gatehouse csrf v1')
      .digest();
  }

  /**
   * The browser's key from its cookies, or a new one with the cookie that sets it. `secure`:
   * the server's base URL is https.
   */
  browserKey(cookieHeader: string | undefined, secure: boolean): BrowserKey {
    const name = csrfCookieName(secure);
    const existing = readCookie(cookieHeader, name);
    if (existing !== undefined && TOKEN_SHAPE.test(existing)) return { value: existing };
    const value = randomBytes(32).toString('base64url');
    return {
      value,
      setCookie: `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
    };
  }

  token(browserKey: string, realm: string, interactionId: string): string {
    return createHmac('sha256', this.#key)
      .update(`${realm}\0${interactionId}\0${browserKey}`)
      .digest('base64url');
  }

  /** The hidden input that carries the token. */
  field(browserKey: string, realm: string, interactionId: string): SafeHtml {
    return html`<input type="hidden" name="${CSRF_FIELD}" value="${this.token(browserKey, realm, interactionId)}">`;
  }

  /** Whether `presented` is this browser's token for this interaction; constant-time. */
  verify(
    cookieHeader: string | undefined,
    secure: boolean,
    realm: string,
    interactionId: string,
    presented: string | null | undefined,
  ): boolean {
    const browserKey = readCookie(cookieHeader, csrfCookieName(secure));
    if (browserKey === undefined || !TOKEN_SHAPE.test(browserKey)) return false;
    if (typeof presented !== 'string' || !TOKEN_SHAPE.test(presented)) return false;
    const expected = Buffer.from(this.token(browserKey, realm, interactionId));
    return timingSafeEqual(Buffer.from(presented), expected);
  }
}

/** One cookie of a `Cookie` header (RFC 6265 §5.4); the first of a repeated name wins. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(';') ?? []) {
    const separator = pair.indexOf('=');
    if (separator !== -1 && pair.slice(0, separator).trim() === name) {
      return pair.slice(separator + 1).trim();
    }
  }
  return undefined;
}
