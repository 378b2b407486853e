import { type Locale, MESSAGES } from './i18n.js';
import { html, layout, type SafeHtml } from './layout.js';

export interface DeviceCodeView {
  locale: Locale;
  csrfField: SafeHtml;
  /** Filled in from `verification_uri_complete`, or again after a failure. */
  userCode?: string;
  error?: 'badUserCode' | 'throttled';
}

/** The page at `verification_uri`: one form with the user code, posted back to its own URL. */
export function deviceCodePage({ locale, csrfField, userCode, error }: DeviceCodeView): string {
  const t = MESSAGES[locale];
  const alert = error
    ? html`<p class="error" role="alert">${error === 'throttled' ? t.throttled : t.device.badUserCode}</p>`
    : html``;
  return layout(
    locale,
    t.device.title,
    html`<main><h1>${t.device.heading}</h1>${alert}
<p>${t.device.instructions}</p>
<form method="post">${csrfField}
<label for="user_code">${t.device.userCode}</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus${userCode ? html` value="${userCode}"` : html``}>
<button type="submit">${t.device.continue}</button>
</form></main>`,
  );
}

/** Where the user ends: the device may continue, or it was given nothing. */
export function deviceOutcomePage(locale: Locale, outcome: 'approved' | 'denied'): string {
  const t = MESSAGES[locale].device;
  const [title, text] =
    outcome === 'approved' ? [t.approvedTitle, t.approvedText] : [t.deniedTitle, t.deniedText];
  return layout(
    locale,
    title,
    html`<main><h1 id="device-${outcome}">${title}</h1><p>${text}</p></main>`,
  );
}
