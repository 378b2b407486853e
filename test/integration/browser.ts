import type { InteractionResult } from '@gatehouse/core';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { endpointPath, type Harness, type TestResponse } from './harness.js';

export const AUTHORIZE = endpointPath('authorize');

/** A browser's cookies for one site; paths are ignored (every test stays in one realm). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  store(response: TestResponse): void {
    for (const cookie of response.cookies ?? []) {
      const [pair = ''] = cookie.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      if (/;\s*Max-Age=0(;|$)/i.test(cookie)) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(separator + 1));
    }
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  set(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  header(): Record<string, string> {
    if (this.#cookies.size === 0) return {};
    return { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }
}

/** A browser on the provider: follows our own redirects by hand and keeps cookies. */
export function browser(h: Harness, jar = new CookieJar(), realm = 'test') {
  /** GETs an absolute URL of the provider. */
  async function visit(url: string): Promise<TestResponse> {
    const { pathname, search } = new URL(url);
    const issuerPath = new URL(h.issuer()).pathname.replace(/\/oauth\/test$/, '');
    const response = await h.get(pathname.slice(issuerPath.length), jar.header(), search.slice(1));
    jar.store(response);
    return response;
  }

  /** Sends the browser to the authorization endpoint with `params` over the web-app defaults. */
  function authorize(params: Record<string, string> = {}): Promise<TestResponse> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'web-app',
      redirect_uri: WEB_REDIRECT_URI,
      scope: 'openid profile',
      state: 'state-123',
      nonce: 'nonce-123',
      code_challenge: S256_CHALLENGE,
      code_challenge_method: 'S256',
      ...params,
    });
    return visit(`${h.issuer(realm)}/authorize?${query}`);
  }

  /** Plays the host application: finishes the interaction the browser was sent to, then resumes. */
  async function finish(response: TestResponse, result: InteractionResult): Promise<TestResponse> {
    const id = interactionId(response);
    const resume = await h.provider.interactions.finish(realm, id, result);
    return visit(resume);
  }

  /**
   * The whole sign-in: authorization request, login as `sub` if asked, consent to everything
   * asked if asked, and the final redirect to the client.
   */
  async function signIn(params: Record<string, string> = {}, sub = 'alice'): Promise<TestResponse> {
    let response = await authorize(params);
    for (let step = 0; step < 3 && isInteraction(h, response, realm); step++) {
      const details = await h.provider.interactions.details(realm, interactionId(response));
      if (!details) throw new Error('interaction vanished');
      response = await finish(
        response,
        details.prompt === 'login' ? { login: { sub } } : { consent: { scopes: details.scopes } },
      );
    }
    return response;
  }

  return { jar, visit, authorize, finish, signIn };
}

/** The code_verifier every test uses, and its S256 challenge (base64url SHA-256). */
export const CODE_VERIFIER = 'dBjftJeZ4CK-mZ2yLV4vN8sgyhKRnvaWUtZFzaMjlx8';
export const S256_CHALLENGE = 'JxaoggWE3_JouxrySheB-QXvqWYOfCFMUvaVBuJxIMs';

export function isInteraction(h: Harness, response: TestResponse, realm = 'test'): boolean {
  const location = response.headers.location ?? '';
  return location.startsWith(`${h.issuer(realm)}/interaction/`);
}

export function interactionId(response: TestResponse): string {
  const location = response.headers.location ?? '';
  const match = /\/interaction\/([^/?#]+)$/.exec(location);
  if (!match?.[1]) throw new Error(`not an interaction redirect: ${response.status} ${location}`);
  return match[1];
}

/** The parameters the client received: from the query or the fragment of the redirect. */
export function clientParams(response: TestResponse): {
  mode: 'query' | 'fragment';
  params: Record<string, string>;
} {
  const location = response.headers.location;
  if (!location?.startsWith(WEB_REDIRECT_URI)) {
    throw new Error(
      `not a redirect to the client: ${response.status} ${location} ${response.body}`,
    );
  }
  const url = new URL(location);
  const mode = url.hash ? 'fragment' : 'query';
  const source = mode === 'fragment' ? url.hash.slice(1) : url.search.slice(1);
  return { mode, params: Object.fromEntries(new URLSearchParams(source)) };
}
