import type { RealmContext } from '../context.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { escapeHtml, htmlPage, scriptHashSource } from '../http/html.js';
import type { GatehouseResponse } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import type { LogoutMessages } from './messages.js';

/** The confirmation page's form field; a logout request from a relying party never has it. */
export const CONFIRMATION_FIELD = 'confirmation';
/** The link the front-channel page continues to; its script reads it from here. */
const CONTINUE_ID = 'gh-continue';
/** How long the front-channel page waits for slow frames before it continues anyway. */
const FRAMES_TIMEOUT_MS = 5000;

/**
 * Continues to the link once every frame has loaded, or after the timeout: a relying party that
 * never answers cannot keep the user on the page. Without scripts the user follows the link.
 */
const CONTINUE_SCRIPT = `(function () {
  var link = document.getElementById(${JSON.stringify(CONTINUE_ID)});
  var frames = document.querySelectorAll('iframe');
  var waiting = frames.length;
  function go() { window.location.replace(link.href); }
  var timer = setTimeout(go, ${FRAMES_TIMEOUT_MS});
  frames.forEach(function (frame) {
    frame.addEventListener('load', function () {
      waiting -= 1;
      if (waiting === 0) { clearTimeout(timer); go(); }
    });
  });
})();`;
const CONTINUE_SCRIPT_SOURCE = scriptHashSource(CONTINUE_SCRIPT);

/** Asks the signed-in user to confirm the logout; the form carries its one-time token. */
export function confirmationPage(
  context: RealmContext,
  t: LogoutMessages,
  client: Client | undefined,
  token: string,
): GatehouseResponse {
  const asker = client
    ? `<p>${escapeHtml(t.confirmAsker(client.config.client_name ?? client.id))}</p>`
    : '';
  const action = escapeHtml(context.realm.url(ENDPOINT_PATHS.endSession));
  return htmlPage(
    200,
    t.confirmTitle,
    `<h1>${escapeHtml(t.confirmHeading)}</h1>${asker}<p>${escapeHtml(t.confirmQuestion(context.realm.issuer))}</p>` +
      `<form method="post" action="${action}"><input type="hidden" name="${CONFIRMATION_FIELD}" value="${escapeHtml(token)}"><button type="submit">${escapeHtml(t.signOut)}</button></form>`,
    {},
    t.lang,
  );
}

/**
 * "You are signed out", with the front-channel logout frames (Front-Channel Logout 1.0 §3) of
 * the session's relying parties, and then, when given, on to `continueTo`. The page may frame
 * exactly the frames' origins and run exactly its one script; it is never framed itself.
 */
export function signedOutPage(
  t: LogoutMessages,
  frames: readonly string[],
  continueTo: string | undefined,
): GatehouseResponse {
  const iframes = frames
    .map(
      (uri) =>
        `<iframe src="${escapeHtml(uri)}" hidden title="${escapeHtml(new URL(uri).host)}"></iframe>`,
    )
    .join('');
  const onward =
    continueTo === undefined
      ? ''
      : `<p><a id="${CONTINUE_ID}" href="${escapeHtml(continueTo)}">${escapeHtml(t.continue)}</a></p><script>${CONTINUE_SCRIPT}</script>`;
  const origins = [...new Set(frames.map((uri) => new URL(uri).origin))];
  const policy = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    ...(origins.length > 0 ? [`frame-src ${origins.join(' ')}`] : []),
    ...(continueTo === undefined ? [] : [`script-src ${CONTINUE_SCRIPT_SOURCE}`]),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return htmlPage(
    200,
    t.signedOutTitle,
    `<h1>${escapeHtml(t.signedOutTitle)}</h1><p>${escapeHtml(t.signedOutText)}</p>${iframes}${onward}`,
    { 'content-security-policy': policy },
    t.lang,
  );
}

/** The logout request could not be carried out; never a redirect to a relying party. */
export function failedPage(t: LogoutMessages, status: number, reason: string): GatehouseResponse {
  return htmlPage(
    status,
    t.failedTitle,
    `<h1>${escapeHtml(t.failedTitle)}</h1><p>${escapeHtml(t.failedText(reason))}</p>`,
    {},
    t.lang,
  );
}
