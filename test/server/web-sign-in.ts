import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { InjectBrowser, type Injector } from './pages-support.js';
import { signInThroughPages } from './sign-in-support.js';

/**
 * Alice and the `web` client of validConfig() (support.ts) through the built-in pages: the code
 * flow as a relying party runs it, for tests that need real codes and refresh tokens.
 */

export const WEB_REDIRECT_URI = 'https://app.example.com/cb';

/** Headers of a token-endpoint request authenticated as `web` (client_secret_basic). */
export const WEB_TOKEN_HEADERS = {
  ...FORM_HEADERS,
  authorization: basicAuthorization('web', SECRETS.basic),
} as const;

/** The URL of web's authorization request (`openid profile`, PKCE), with `extra` parameters. */
export function webAuthorizeUrl(
  baseUrl: string,
  extra: Record<string, string> = {},
  realm = 'demo',
): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: WEB_REDIRECT_URI,
    scope: 'openid profile',
    nonce: 'nonce-123',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `${baseUrl}/oauth/${realm}/authorize?${query}`;
}

/** Alice signs in to `realm` with a fresh browser; resolves with the code `web` receives. */
export function aliceSignsIn(server: Injector, baseUrl: string, realm = 'demo'): Promise<string> {
  return aliceSignsInWith(new InjectBrowser(server, baseUrl), baseUrl, realm);
}

/** Alice signs in with `browser`, which keeps her session cookie; resolves with web's code. */
export async function aliceSignsInWith(
  browser: InjectBrowser,
  baseUrl: string,
  realm = 'demo',
): Promise<string> {
  const callback = await signInThroughPages(browser, webAuthorizeUrl(baseUrl, {}, realm), {
    username: 'alice',
    password: 'alice-password',
  });
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  return code;
}

/**
 * What a `prompt=none` authorization of web answers `browser`: `code` while its session signs
 * in silently, else the error code (`login_required`, `consent_required`).
 */
export async function silentAuthorization(
  browser: InjectBrowser,
  baseUrl: string,
): Promise<string> {
  const answer = await browser.get(webAuthorizeUrl(baseUrl, { prompt: 'none' }));
  const location = answer.headers.location;
  if (typeof location !== 'string' || !location.startsWith(`${WEB_REDIRECT_URI}?`))
    throw new Error(`expected a redirect to web (${answer.statusCode}): ${answer.body}`);
  const params = new URL(location).searchParams;
  return params.has('code') ? 'code' : (params.get('error') ?? 'nothing');
}

/** The body of web's request exchanging `code`. */
export const codeExchange = (code: string) =>
  form({
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT_URI,
    code_verifier: CODE_VERIFIER,
  });

/** The body of web's request using `refreshToken`. */
export const refreshRequest = (refreshToken: string) =>
  form({ grant_type: 'refresh_token', refresh_token: refreshToken });
