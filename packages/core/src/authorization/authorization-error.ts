import { OAuthError } from '../errors/oauth-error.js';

/** Section 7.1: shown at the provider, never redirected (the redirect target is not trusted). */
export const shownAtProvider = (
  code: 'invalid_client_id' | 'invalid_redirect_uri' | 'invalid_request',
  description: string,
) => new OAuthError(code, description);

/** Section 7.2 (and OIDC Core §3.1.2.6): sent back to the client's redirect_uri. */
export const redirected = (code: string, description: string) =>
  new OAuthError(code, description, { redirectable: true });
