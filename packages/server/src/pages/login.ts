import type { Locale } from './i18n.js';
import { MESSAGES } from './i18n.js';
import { html, layout, type SafeHtml } from './layout.js';

export interface LoginView {
  locale: Locale;
  /** The client's name, or its id when it has none. */
  client: string;
  csrfField: SafeHtml;
  /** Filled in again after a failure, or from `login_hint`. */
  username?: string;
  error?: 'badCredentials' | 'throttled';
}

/** The login page: one form, posted back to its own URL. */
export function loginPage({ locale, client, csrfField, username, error }: LoginView): string {
  const t = MESSAGES[locale];
  const alert = error ? html`<p class="error" role="alert">${t[error]}</p>` : html``;
  return layout(
    locale,
    t.loginTitle,
    html`<main><h1>${t.loginHeading(client)}</h1>${alert}
<form method="post">${csrfField}
<label for="username">${t.username}</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required${username ? html` value="${username}"` : html` autofocus`}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? html` autofocus` : html``}>
<button type="submit">${t.signIn}</button>
</form></main>`,
  );
}
