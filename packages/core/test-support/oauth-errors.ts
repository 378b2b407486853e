import { OAuthError } from '../src/errors/oauth-error.js';

/** The OAuthError `run` throws synchronously; anything else thrown, or nothing, fails the test. */
export function oauthErrorOf(run: () => unknown): OAuthError {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('expected an OAuthError to be thrown');
}
