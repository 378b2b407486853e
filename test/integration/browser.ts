import type { InteractionResult } from '@gatehouse-oidc/core';
import { CookieJar } from '../support/cookie-jar.js';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { endpointPath, type Harness, type TestResponse } from './harness.js';

export const AUTHORIZE = endpointPath('authorize');

/** A browser on the provider: follows our own redirects by hand and keeps cookies in `jar`. */
export function browser(h: Harness, jar = new CookieJar(), realm = 'test') {
  /** GETs an absolute URL of the provider. */
  async function visit(url: string): Promise<TestResponse> {
    const target = new URL(url);
    const { pathname, search } = target;
    const issuerPath = new URL(h.issuer()).pathname.replace(/\/oauth\/test$/, '');
    const response = await h.get(
      pathname.slice(issuerPath.length),
      jar.header(target),
      search.slice(1),
    );
    jar.store(target, response.cookies ?? []);
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

  /** The Cookie header this browser sends to the host's page it was redirected to. */
  const pageCookies = (response: TestResponse) =>
    jar.header(new URL(response.headers.location ?? '')).cookie;

  /** Plays the host's page: what it learns about the interaction the browser was sent to. */
  function details(response: TestResponse) {
    return h.provider.interactions.details(realm, interactionId(response), pageCookies(response));
  }

  /** Plays the host application: finishes the interaction the browser was sent to, then resumes. */
  async function finish(response: TestResponse, result: InteractionResult): Promise<TestResponse> {
    const id = interactionId(response);
    const resume = await h.provider.interactions.finish(realm, id, result, pageCookies(response));
    return visit(resume);
  }

  /**
   * The whole sign-in: authorization request, login as `sub` if asked, consent to everything
   * asked if asked, and the final redirect to the client.
   */
  async function signIn(params: Record<string, string> = {}, sub = 'alice'): Promise<TestResponse> {
    let response = await authorize(params);
    for (let step = 0; step < 3 && isInteraction(h, response, realm); step++) {
      const shown = await details(response);
      if (!shown) throw new Error('interaction vanished');
      response = await finish(
        response,
        shown.prompt === 'login' ? { login: { sub } } : { consent: { scopes: shown.scopes } },
      );
    }
    return response;
  }

  /**
   * Plays the host's device verification page: hands the typed user code to the provider and
   * returns the redirect to the sign-in it started (undefined when the code was refused).
   */
  async function enterUserCode(userCode: string): Promise<TestResponse | undefined> {
    const issuer = new URL(h.issuer(realm));
    const started = await h.provider.device.start(realm, userCode, {
      cookieHeader: jar.header(issuer).cookie,
    });
    if (!started) return undefined;
    jar.store(issuer, started.cookies);
    return { status: 303, headers: { location: started.location }, json: () => ({}) };
  }

  /**
   * The user approves (`allow`) or denies a device's request: types its code, signs in as `sub`
   * if asked, answers the consent page. Resolves with the redirect back to the verification page.
   */
  async function answerDevice(
    userCode: string,
    decision: 'allow' | 'deny',
    sub = 'alice',
  ): Promise<TestResponse> {
    let response = await enterUserCode(userCode);
    if (!response) throw new Error(`the user code ${userCode} was refused`);
    for (let step = 0; step < 2 && isInteraction(h, response, realm); step++) {
      const shown = await details(response);
      if (!shown) throw new Error('interaction vanished');
      response = await finish(
        response,
        shown.prompt === 'login'
          ? { login: { sub, amr: ['pwd'] } }
          : decision === 'allow'
            ? { consent: { scopes: shown.scopes } }
            : { error: 'access_denied' },
      );
    }
    return response;
  }

  return {
    jar,
    visit,
    authorize,
    details,
    finish,
    signIn,
    pageCookies,
    enterUserCode,
    answerDevice,
  };
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

/** The parameters the client received: from the query or the fragment of the redirect, or the form of a form_post page. */
export function clientParams(response: TestResponse): {
  mode: 'query' | 'fragment' | 'form_post';
  params: Record<string, string>;
} {
  const posted = formPostOf(response);
  if (posted) {
    if (posted.action !== WEB_REDIRECT_URI)
      throw new Error(`form posted elsewhere: ${posted.action}`);
    return { mode: 'form_post', params: posted.params };
  }
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

const ENTITIES: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);

/** The form of a form_post response page (OAuth 2.0 Form Post Response Mode), or undefined. */
export function formPostOf(
  response: TestResponse,
): { action: string; params: Record<string, string> } | undefined {
  if (response.status !== 200 || !response.headers['content-type']?.startsWith('text/html')) {
    return undefined;
  }
  const form = /<form method="post" action="([^"]*)">(.*?)<\/form>/s.exec(response.body ?? '');
  if (!form?.[1]) return undefined;
  const params: Record<string, string> = {};
  for (const [, name, value] of (form[2] ?? '').matchAll(
    /<input type="hidden" name="([^"]*)" value="([^"]*)">/g,
  )) {
    params[unescapeHtml(name ?? '')] = unescapeHtml(value ?? '');
  }
  return { action: unescapeHtml(form[1]), params };
}
