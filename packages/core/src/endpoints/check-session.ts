import type { EndpointHandler } from '../context.js';
import { htmlPage, scriptHashSource } from '../http/html.js';
import { BROWSER_STATE_COOKIE } from '../sessions/session.js';

/**
 * The iframe's script (OpenID Connect Session Management 1.0 §3.3). The relying party posts
 * `client_id + " " + session_state`; the answer is "unchanged" when hashing the client, the
 * sender's origin, the current browser state and the salt gives the same value as
 * sessions/session-state.ts did, "changed" otherwise (also once the browser state cookie is
 * gone), and "error" for a message it cannot read or a browser without WebCrypto.
 */
export const CHECK_SESSION_SCRIPT = `(function () {
  'use strict';
  var COOKIE = ${JSON.stringify(BROWSER_STATE_COOKIE)};
  function browserState() {
    var pairs = document.cookie ? document.cookie.split(';') : [];
    for (var i = 0; i < pairs.length; i++) {
      var pair = pairs[i].trim();
      var separator = pair.indexOf('=');
      if (separator > 0 && pair.slice(0, separator) === COOKIE) return pair.slice(separator + 1);
    }
    return '';
  }
  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (byte) {
      return byte.toString(16).padStart(2, '0');
    }).join('');
  }
  function status(message, origin) {
    var parts = typeof message === 'string' ? message.split(' ') : [];
    var clientId = parts[0];
    var sessionState = parts[1];
    var dot = sessionState === undefined ? -1 : sessionState.lastIndexOf('.');
    if (parts.length !== 2 || !clientId || dot < 1 || dot === sessionState.length - 1) {
      return Promise.resolve('error');
    }
    var state = browserState();
    if (state === '') return Promise.resolve('changed');
    var salt = sessionState.slice(dot + 1);
    var input = new TextEncoder().encode(clientId + ' ' + origin + ' ' + state + ' ' + salt);
    return crypto.subtle.digest('SHA-256', input).then(function (digest) {
      return hex(digest) === sessionState.slice(0, dot) ? 'unchanged' : 'changed';
    });
  }
  window.addEventListener('message', function (event) {
    if (!event.source || event.origin === 'null') return;
    Promise.resolve()
      .then(function () { return status(event.data, event.origin); })
      .catch(function () { return 'error'; })
      .then(function (answer) { event.source.postMessage(answer, event.origin); });
  });
})();`;

/**
 * Unlike every other page, this one exists to be framed by relying parties, so it has no
 * X-Frame-Options and no `frame-ancestors`; it shows nothing and runs only its own script.
 */
export const CHECK_SESSION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'content-security-policy': `default-src 'none'; script-src ${scriptHashSource(CHECK_SESSION_SCRIPT)}; base-uri 'none'; form-action 'none'`,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
});

const page = htmlPage(200, 'Session check', `<script>${CHECK_SESSION_SCRIPT}</script>`);

/** The check_session_iframe: the same page for every realm and every request. */
export const checkSessionEndpoint: EndpointHandler = async () => ({
  ...page,
  headers: { ...CHECK_SESSION_HEADERS },
});
