import { csrfTokenOf, type InjectBrowser } from './pages-support.js';

/**
 * A user signing in through the built-in pages: the authorization request, the login form and,
 * when the server asks, the consent form (allowed). Returns the URL the browser is then sent to,
 * the client's redirect_uri with the code or the error.
 */
export async function signInThroughPages(
  browser: InjectBrowser,
  authorizeUrl: string,
  credentials: { username: string; password: string },
): Promise<URL> {
  const login = await browser.follow(await browser.get(authorizeUrl));
  if (!login.body.includes('name="password"')) {
    throw new Error(`expected the login page (${login.statusCode}): ${login.body}`);
  }
  const fields = { ...credentials, csrf_token: csrfTokenOf(login.body) };
  let answer = await browser.follow(await browser.post(browser.lastUrl, fields));
  if (answer.statusCode === 200 && answer.body.includes('name="decision"')) {
    const consent = { decision: 'allow', csrf_token: csrfTokenOf(answer.body) };
    answer = await browser.follow(await browser.post(browser.lastUrl, consent));
  }
  const location = answer.headers.location;
  if (answer.statusCode < 300 || answer.statusCode > 399 || typeof location !== 'string') {
    throw new Error(`the sign-in did not end at the client (${answer.statusCode}): ${answer.body}`);
  }
  return new URL(location);
}
