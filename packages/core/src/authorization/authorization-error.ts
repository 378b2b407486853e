import type { RedirectedCode, ShownCode } from '../errors/codes.js';
import { OAuthError } from '../errors/oauth-error.js';

/** docs/interface.md §7.1: shown at the provider, never redirected (the target is not trusted). */
export const shownAtProvider = (code: ShownCode, description: string) =>
  new OAuthError(code, description);

/** docs/interface.md §7.2 (and OIDC Core 1.0 §3.1.2.6): sent back to the client's redirect_uri. */
export const redirected = (code: RedirectedCode, description: string) =>
  new OAuthError(code, description, { redirectable: true });
