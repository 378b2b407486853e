import { type Locale, MESSAGES, type Messages } from './i18n.js';
import { html, layout, type SafeHtml } from './layout.js';

export interface ConsentView {
  locale: Locale;
  client: string;
  /** Who is asked: a display name of the signed-in user. */
  user?: string;
  scopes: readonly string[];
  csrfField: SafeHtml;
  /**
   * For a client known only by its metadata document: the host its redirect URI goes to, and
   * whether that is the user's own computer.
   */
  redirect?: { host: string; loopback: boolean };
  /** For a device's request (RFC 8628): the user code, for the user to compare with the device. */
  deviceUserCode?: string;
}

/**
 * The consent page: the requested scopes, one form, and an allow and a deny button; for a client
 * known only by its metadata document, where the answer goes, and a plain warning when that is
 * this computer; for a device's request, the code the device shows.
 */
export function consentPage({
  locale,
  client,
  user,
  scopes,
  csrfField,
  redirect,
  deviceUserCode,
}: ConsentView): string {
  const t = MESSAGES[locale];
  const items = scopes.map((scope) => {
    const description = t.scopes.get(scope);
    return description
      ? html`<li>${description} <code>${scope}</code></li>`
      : html`<li><code>${scope}</code></li>`;
  });
  return layout(
    locale,
    t.consentTitle,
    html`<main><h1>${t.consentHeading(client)}</h1>${user ? html`<p>${t.signedInAs(user)}</p>` : html``}
${redirect ? redirectNotice(t, redirect) : html``}
${deviceUserCode ? html`<p id="device-code">${t.device.checkCode(deviceUserCode)}</p>` : html``}
<p>${t.requestedScopes}</p>
<ul>${items}</ul>
<form method="post">${csrfField}
<button type="submit" name="decision" value="allow">${t.allow}</button>
<button type="submit" name="decision" value="deny">${t.deny}</button>
</form></main>`,
  );
}

function redirectNotice(t: Messages, redirect: NonNullable<ConsentView['redirect']>): SafeHtml {
  const loopback = redirect.loopback
    ? html`<p class="error" id="loopback">${t.loopbackApplication}</p>`
    : html``;
  return html`<p id="redirect-host">${t.answerGoesTo(redirect.host)}</p>${loopback}`;
}
