import { escapeHtml as esc, type InteractionDetails } from '@gatehouse-oidc/core';
import { displayName } from './users.js';

/**
 * The app's pages as HTML strings, for any framework to send. Every value from the request or the
 * client's registration is escaped here.
 */

/** Headers of every page: never framed (clickjacking), cached, or named in a Referer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** A whole page; `body` must already be safe HTML. */
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${esc(title)}</title>
<h1>${esc(title)}</h1>${body}</html>`;

export const homePage = (name: string, discovery: string) =>
  page(name, `<p>Gatehouse: <a href="${esc(discovery)}">${esc(discovery)}</a>`);

const hidden = (details: InteractionDetails, csrf: string) =>
  `<input type="hidden" name="interaction" value="${esc(details.id)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">`;

/** The login form, posted to /login; after a failure, with the username typed and `error`. */
export const loginPage = (details: InteractionDetails, csrf: string, username = '', error = '') =>
  page(
    'Sign in',
    `
<p>to continue to ${esc(details.client.name ?? details.client.id)}</p>
${error && `<p role="alert">${esc(error)}</p>`}
<form method="post" action="/login">${hidden(details, csrf)}
<label>Username <input name="username" value="${esc(username || (details.loginHint ?? ''))}"></label>
<label>Password <input name="password" type="password"></label>
<button>Sign in</button> <button name="action" value="cancel">Cancel</button></form>`,
  );

/** The consent form, posted to /consent with `decision` allow or deny. */
export const consentPage = (details: InteractionDetails, csrf: string) =>
  page(
    'Allow access?',
    `
<p>${esc(details.client.name ?? details.client.id)} asks ${esc(displayName(details.sub ?? ''))} for:</p>
<ul>${details.scopes.map((scope) => `<li>${esc(scope)}</li>`).join('')}</ul>
<form method="post" action="/consent">${hidden(details, csrf)}
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form>`,
  );

/** For a form without this browser's token for its interaction. */
export const FORBIDDEN_PAGE = page('Forbidden', '<p>Please try again.</p>');
/** For an unknown, expired or already finished interaction. */
export const EXPIRED_PAGE = page(
  'Sign-in expired',
  '<p>Go back to the application and try again.</p>',
);
