import { type RequestState, spaceSeparated } from './check.js';

/**
 * OIDC Core 1.0 §3.1.2.1: ui_locales, acr_values and login_hint, kept for the host's pages (their
 * lengths are bounded by parameter-lengths.ts); nothing here can fail.
 */
export function readHints({ params, found }: RequestState): void {
  const uiLocales = spaceSeparated(params.get('ui_locales'));
  const acrValues = spaceSeparated(params.get('acr_values'));
  const loginHint = params.get('login_hint');
  if (uiLocales !== undefined) found.uiLocales = uiLocales;
  if (acrValues !== undefined) found.acrValues = acrValues;
  if (loginHint !== undefined) found.loginHint = loginHint;
}
