import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import { basicAuthorization, FORM_HEADERS, form } from '../support/fixtures.js';

/**
 * The public origin the example apps are configured with. The apps listen on a loopback port
 * picked at start, after their provider (and so their issuer) exists; the browser below sends
 * requests for this origin to that port, as a reverse proxy would.
 */
export const PUBLIC_ORIGIN = 'http://app.example.test';

/** What every example exports: its app, listening, configured with its public origin. */
export type StartExample = (options: {
  origin: string;
  port: number;
  host: string;
}) => Promise<{ port: number; close(): Promise<void> }>;

/** The demo realm, client and user every example configures (see examples/*-app/src). */
export const DEMO = {
  issuer: `${PUBLIC_ORIGIN}/auth/oauth/demo`,
  client: {
    id: 'demo-web',
    secret: 'demo-web-secret-change-me',
    redirectUri: 'http://127.0.0.1:8080/callback',
  },
  user: { username: 'alice', password: 'alice-demo-password' },
} as const;

export interface Page {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A browser reduced to what the flow needs: a cookie jar, and redirects followed by hand so each
 * hop can be checked. It only talks to the app, at `publicOrigin` (PUBLIC_ORIGIN unless the app
 * is configured with its loopback origin), sending its requests to `loopbackOrigin`.
 */
export class Browser {
  readonly #cookies = new CookieJar();
  /** Every response seen, in order, redirects included. */
  readonly hops: Page[] = [];

  constructor(
    readonly loopbackOrigin: string,
    readonly publicOrigin: string = PUBLIC_ORIGIN,
  ) {}

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    if (!url.startsWith(`${this.publicOrigin}/`)) throw new Error(`not the app's origin: ${url}`);
    const method = init.method ?? 'GET';
    const response = await fetch(`${this.loopbackOrigin}${url.slice(this.publicOrigin.length)}`, {
      method,
      redirect: 'manual',
      headers: { ...this.#cookies.header(new URL(url)), ...(init.form ? FORM_HEADERS : {}) },
      ...(init.form ? { body: form(init.form) } : {}),
    });
    this.#cookies.store(new URL(url), response.headers.getSetCookie());
    const page = {
      method,
      url,
      status: response.status,
      headers: response.headers,
      body: await response.text(),
    };
    this.hops.push(page);
    return page;
  }

  /** Requests `url`, then follows redirects within the app; stops at the first one leaving it. */
  async navigate(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let page = await this.request(url, init);
    for (let hop = 0; hop < 10; hop++) {
      const location = redirectTarget(page);
      if (!location) return { page, leftTo: undefined };
      if (!location.startsWith(`${this.publicOrigin}/`)) return { page, leftTo: new URL(location) };
      page = await this.request(location);
    }
    throw new Error(`too many redirects, last at ${page.url}`);
  }

  /** Submits the page's only POST form: its hidden fields, overridden or extended by `fields`. */
  submit(page: Page, fields: Record<string, string>) {
    const found = /(<form\b[^>]*\bmethod="post"[^>]*>)([\s\S]*?)<\/form>/i.exec(page.body);
    if (!found?.[1] || !found[2]) throw new Error(`no form on ${page.url}:\n${page.body}`);
    const action = attribute(found[1], 'action') ?? '';
    const hidden: Record<string, string> = {};
    for (const [input] of found[2].matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input, 'name');
      if (attribute(input, 'type') === 'hidden' && name)
        hidden[name] = attribute(input, 'value') ?? '';
    }
    return this.navigate(new URL(action, page.url).href, {
      method: 'POST',
      form: { ...hidden, ...fields },
    });
  }
}

function redirectTarget(page: Page): string | undefined {
  const location = page.headers.get('location');
  return page.status >= 300 && page.status < 400 && location
    ? new URL(location, page.url).href
    : undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function attribute(tag: string, name: string): string | undefined {
  const value = new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag)?.[1];
  return value?.replace(/&(#\d+|\w+);/g, (entity, code: string) =>
    code.startsWith('#') ? String.fromCharCode(Number(code.slice(1))) : (ENTITIES[code] ?? entity),
  );
}

/** An authorization request of the demo client, with fresh PKCE, state and nonce. */
export function authorizationRequest(scope = 'openid profile email') {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const nonce = randomBytes(16).toString('base64url');
  const url = new URL(`${DEMO.issuer}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: DEMO.client.id,
    redirect_uri: DEMO.client.redirectUri,
    scope,
    state,
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.href, verifier, state, nonce };
}

/** The client's side of the callback: a code for this state, from this issuer (RFC 9207). */
export function expectCode(leftTo: URL | undefined, state: string): string {
  expect(leftTo && `${leftTo.origin}${leftTo.pathname}`).toBe(DEMO.client.redirectUri);
  const params = leftTo?.searchParams;
  expect({
    state: params?.get('state'),
    iss: params?.get('iss'),
    error: params?.get('error'),
  }).toEqual({
    state,
    iss: DEMO.issuer,
    error: null,
  });
  const code = params?.get('code');
  if (!code) throw new Error(`no code in ${leftTo?.href}`);
  return code;
}

/**
 * The user's part of an authorization request at `url`: signs in on the login page unless the
 * browser is signed in already, allows on the consent page if one is shown, and is sent back to
 * the client; returns where (never fetched). Works on the example apps' pages and on the
 * standalone server's.
 */
export async function signInAndAllow(
  browser: Browser,
  url: string,
  user: { username: string; password: string },
): Promise<URL> {
  let next = await browser.navigate(url);
  if (!next.leftTo && next.page.body.includes('name="password"')) {
    next = await browser.submit(next.page, user);
  }
  if (!next.leftTo && next.page.body.includes('name="decision"')) {
    next = await browser.submit(next.page, { decision: 'allow' });
  }
  if (!next.leftTo) throw new Error(`not sent back (${next.page.status}): ${next.page.body}`);
  return next.leftTo;
}

export interface CodeFlowResult {
  /** Every response the browser saw. */
  hops: Page[];
  idToken: JWTPayload;
  userinfo: Record<string, unknown>;
  tokens: Record<string, unknown>;
}

/**
 * The whole authorization code flow with PKCE, as a relying party and a user would go through
 * it: discovery, the authorization request, the app's login page, its consent page if it shows
 * one, the callback, the token exchange, the ID token and userinfo.
 */
export async function driveCodeFlow(browser: Browser): Promise<CodeFlowResult> {
  const discovery = await browser.request(`${DEMO.issuer}/.well-known/openid-configuration`);
  expect(discovery.status).toBe(200);
  const metadata = JSON.parse(discovery.body) as Record<string, string>;
  expect(metadata.issuer).toBe(DEMO.issuer);

  const request = authorizationRequest();
  const code = expectCode(await signInAndAllow(browser, request.url, DEMO.user), request.state);

  const exchange = await fetch(toLoopback(browser, metadata.token_endpoint), {
    method: 'POST',
    headers: {
      ...FORM_HEADERS,
      authorization: basicAuthorization(DEMO.client.id, DEMO.client.secret),
    },
    body: form({
      grant_type: 'authorization_code',
      code,
      redirect_uri: DEMO.client.redirectUri,
      code_verifier: request.verifier,
    }),
  });
  const tokens = (await exchange.json()) as Record<string, unknown>;
  expect(exchange.status, JSON.stringify(tokens)).toBe(200);
  expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
  const idToken = decodeJwt(String(tokens.id_token));
  expect(idToken).toMatchObject({ iss: DEMO.issuer, aud: DEMO.client.id, nonce: request.nonce });

  const userinfoResponse = await fetch(toLoopback(browser, metadata.userinfo_endpoint), {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(userinfoResponse.status).toBe(200);
  const userinfo = (await userinfoResponse.json()) as Record<string, unknown>;
  return { hops: browser.hops, idToken, userinfo, tokens };
}

function toLoopback(browser: Browser, url: string | undefined): string {
  if (!url?.startsWith(`${PUBLIC_ORIGIN}/`)) throw new Error(`not the app's endpoint: ${url}`);
  return `${browser.loopbackOrigin}${url.slice(PUBLIC_ORIGIN.length)}`;
}
