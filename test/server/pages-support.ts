import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';

/** What a test needs from a login or consent page to post its form back as the browser would. */
export interface OpenedPage {
  response: LightMyRequestResponse;
  /** The hidden CSRF token of the form. */
  token: string;
  /** The `Cookie` header the browser sends from now on (its CSRF key). */
  cookie: string;
}

export interface Injector {
  inject(options: {
    method: 'GET' | 'POST';
    url: string;
    headers?: Record<string, string>;
    payload?: string;
    remoteAddress?: string;
  }): Promise<LightMyRequestResponse>;
}

/** GETs a page and reads its CSRF token and the cookie it set (or keeps `cookie`). */
export async function openPage(app: Injector, url: string, cookie?: string): Promise<OpenedPage> {
  const response = await app.inject({
    method: 'GET',
    url,
    headers: cookie ? { cookie } : {},
  });
  const token = /<input type="hidden" name="csrf_token" value="([\w-]+)">/.exec(response.body)?.[1];
  if (!token)
    throw new Error(`no CSRF token in the page (${response.statusCode}): ${response.body}`);
  const set = [response.headers['set-cookie'] ?? []].flat()[0];
  return { response, token, cookie: set ? (set.split(';', 1)[0] as string) : (cookie ?? '') };
}

/** POSTs a form as a browser does. */
export function postForm(
  app: Injector,
  url: string,
  fields: Record<string, string>,
  { cookie, remoteAddress }: { cookie?: string; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { cookie } : {}),
    },
    payload: new URLSearchParams(fields).toString(),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** The headers every answer of the login and consent pages carries. */
export function expectPageHeaders(headers: Record<string, unknown>): void {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(headers['content-security-policy']).toMatch(/form-action 'self'/);
  expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['cache-control']).toBe('no-store');
}

/** The CSRF token of a page's form. */
export function csrfTokenOf(body: string): string {
  const token = /<input type="hidden" name="csrf_token" value="([\w-]+)">/.exec(body)?.[1];
  if (!token) throw new Error(`no CSRF token in the page: ${body}`);
  return token;
}

/**
 * A browser over `app.inject`: keeps cookies in test/support/cookie-jar.ts (RFC 6265 paths),
 * sends them where they apply, and follows redirects as long as they stay on the server's origin.
 */
export class InjectBrowser {
  readonly #cookies = new CookieJar();
  /** Every Set-Cookie received, by cookie name, as sent (to check attributes). */
  readonly setCookies = new Map<string, string>();
  /** The URL of the last GET, as the browser's address bar shows it. */
  lastUrl = '';

  constructor(
    private readonly app: Injector,
    private readonly origin: string,
  ) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    const path = this.#path(url);
    this.lastUrl = `${this.origin}${path}`;
    return this.#keep(
      path,
      await this.app.inject({ method: 'GET', url: path, headers: this.#cookie(path) }),
    );
  }

  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const path = this.#path(url);
    return this.#keep(
      path,
      await this.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.#cookie(path) },
        payload: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** Follows redirects while they point at the server; the first other answer is returned. */
  async follow(response: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    let current = response;
    for (let hops = 0; hops < 10; hops += 1) {
      const location = current.headers.location;
      if (current.statusCode < 300 || current.statusCode > 399 || typeof location !== 'string')
        return current;
      if (!location.startsWith(`${this.origin}/`)) return current;
      current = await this.get(location);
    }
    throw new Error('too many redirects');
  }

  #path(url: string): string {
    if (url.startsWith('/')) return url;
    if (!url.startsWith(`${this.origin}/`)) throw new Error(`not on the server: ${url}`);
    return url.slice(this.origin.length);
  }

  #cookie(path: string): Record<string, string> {
    return this.#cookies.header(new URL(path, this.origin));
  }

  #keep(path: string, response: LightMyRequestResponse): LightMyRequestResponse {
    const setCookies = [response.headers['set-cookie'] ?? []].flat();
    for (const cookie of setCookies)
      this.setCookies.set(cookie.slice(0, cookie.indexOf('=')), cookie);
    this.#cookies.store(new URL(path, this.origin), setCookies);
    return response;
  }
}
