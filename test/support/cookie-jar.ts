interface Cookie {
  name: string;
  value: string;
  path: string;
  secure: boolean;
}

/**
 * One site's cookies, kept as a browser keeps them (RFC 6265 §5.2–5.4 minus domains and expiry
 * dates): path matching, `Secure` and `Max-Age`. So a cookie scoped to the wrong path under a
 * mount prefix is missing from the next request exactly as in a real browser.
 */
export class CookieJar {
  #cookies: Cookie[] = [];

  /** Keeps the `Set-Cookie` values of a response to `url`. */
  store(url: URL, setCookies: readonly string[]): void {
    for (const setCookie of setCookies) {
      const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      if (separator < 1) continue;
      const cookie: Cookie = {
        name: pair.slice(0, separator),
        value: pair.slice(separator + 1),
        path: defaultPath(url),
        secure: false,
      };
      let maxAge: number | undefined;
      for (const attribute of attributes) {
        const [key = '', value = ''] = attribute.split('=', 2);
        const name = key.trim().toLowerCase();
        if (name === 'path' && value.startsWith('/')) cookie.path = value;
        else if (name === 'secure') cookie.secure = true;
        else if (name === 'max-age') maxAge = Number(value);
      }
      if (cookie.secure && url.protocol !== 'https:') continue;
      this.#cookies = this.#cookies.filter(
        (kept) => kept.name !== cookie.name || kept.path !== cookie.path,
      );
      if (maxAge === undefined || maxAge > 0) this.#cookies.push(cookie);
    }
  }

  /** Plants a cookie as script or another site could, with no attributes but its path. */
  set(name: string, value: string, path = '/'): void {
    this.#cookies = this.#cookies.filter((kept) => kept.name !== name || kept.path !== path);
    this.#cookies.push({ name, value, path, secure: false });
  }

  /** Another jar holding the same cookies from now on apart: a second profile of the browser. */
  clone(): CookieJar {
    const copy = new CookieJar();
    copy.#cookies = this.#cookies.map((cookie) => ({ ...cookie }));
    return copy;
  }

  /** The value of `name` a request to `url` would carry first. */
  get(name: string, url: URL): string | undefined {
    return this.#sent(url).find((cookie) => cookie.name === name)?.value;
  }

  /** The `Cookie` header for a request to `url`: longer paths first (RFC 6265 §5.4). */
  header(url: URL): Record<string, string> {
    const sent = this.#sent(url);
    if (sent.length === 0) return {};
    return { cookie: sent.map(({ name, value }) => `${name}=${value}`).join('; ') };
  }

  /** The cookies a request to `url` carries, in the order it sends them. */
  #sent(url: URL): Cookie[] {
    return this.#cookies
      .filter((cookie) => pathMatches(url.pathname, cookie.path))
      .filter((cookie) => !cookie.secure || url.protocol === 'https:')
      .sort((a, b) => b.path.length - a.path.length);
  }
}

/** RFC 6265 §5.1.4. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** RFC 6265 §5.1.4: the request path up to its last `/`. */
function defaultPath(url: URL): string {
  const last = url.pathname.lastIndexOf('/');
  return last <= 0 ? '/' : url.pathname.slice(0, last);
}
