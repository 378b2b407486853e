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

/** Alice signs in with a fresh browser; resolves with the code `web` receives. */
export async function aliceSignsIn(server: Injector, baseUrl: string): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: WEB_REDIRECT_URI,
    scope: 'openid profile',
    nonce: 'nonce-123',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
  });
  const callback = await signInThroughPages(
    new InjectBrowser(server, baseUrl),
    `${baseUrl}/oauth/demo/authorize?${query}`,
    { username: 'alice', password: 'alice-password' },
  );
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  return code;
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
