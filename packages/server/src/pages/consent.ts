import type { Locale } from './i18n.js';
import { MESSAGES } from './i18n.js';
import { html, layout, type SafeHtml } from './layout.js';

export interface ConsentView {
  locale: Locale;
  client: string;
  /** Who is asked: a display name of the signed-in user. */
  user?: string;
  scopes: readonly string[];
  csrfField: SafeHtml;
}

/** The consent page: the requested scopes, one form, and an allow and a deny button. */
export function consentPage({ locale, client, user, scopes, csrfField }: ConsentView): string {
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
<p>${t.requestedScopes}</p>
<ul>${items}</ul>
<form method="post">${csrfField}
<button type="submit" name="decision" value="allow">${t.allow}</button>
<button type="submit" name="decision" value="deny">${t.deny}</button>
</form></main>`,
  );
}
