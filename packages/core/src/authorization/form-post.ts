import { base64urlFromBytes } from '../crypto/base64url.js';
import { sha256Bytes } from '../crypto/digest.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import type { GatehouseResponse } from '../http/types.js';

/** Submits the page's one form as soon as it is parsed; the button does it without JavaScript. */
const SUBMIT_SCRIPT = 'document.forms[0].submit()';

/** The script is allowed by its hash: no `'unsafe-inline'`, and nothing a parameter could add runs. */
const SCRIPT_SOURCE = `'sha256-${standardBase64(base64urlFromBytes(sha256Bytes(SUBMIT_SCRIPT)))}'`;

/**
 * Like every page Gatehouse renders, never framed, cached or sent on with a referrer (the
 * parameters must reach the client and nobody else). No `form-action`: browsers apply it to the
 * redirects that follow the post, and those are the client's own.
 */
const FORM_POST_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': `default-src 'none'; script-src ${SCRIPT_SOURCE}; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'`,
});

/**
 * OAuth 2.0 Form Post Response Mode §2: the response parameters as hidden fields of a form the
 * browser POSTs to the redirect URI, submitted by a script, or by the user pressing the visible
 * button when scripts do not run.
 */
export function formPostPage(
  redirectUri: string,
  params: Readonly<Record<string, string>>,
  cookies?: readonly string[],
): GatehouseResponse {
  const fields = Object.entries(params)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('');
  const page = htmlPage(
    200,
    'Continue',
    `<form method="post" action="${escapeHtml(redirectUri)}">${fields}` +
      '<p>Returning you to the application.</p><button type="submit">Continue</button></form>' +
      `<script>${SUBMIT_SCRIPT}</script>`,
    { ...FORM_POST_HEADERS },
  );
  return cookies && cookies.length > 0 ? { ...page, cookies } : page;
}

/** RFC 4648 §4 base64, as CSP hash sources are written, from its unpadded base64url form. */
function standardBase64(base64url: string): string {
  const base64 = base64url.replaceAll('-', '+').replaceAll('_', '/');
  return base64.padEnd(Math.ceil(base64.length / 4) * 4, '=');
}
