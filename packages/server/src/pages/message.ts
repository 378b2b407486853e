import { type Locale, MESSAGES, type Messages } from './i18n.js';
import { html, layout } from './layout.js';

/** Pages that only say something: each a title and a paragraph of the messages. */
export type MessageKind = 'expired' | 'forbidden' | 'badRequest' | 'unavailable' | 'error';

/** A page that explains why the sign-in cannot go on; never any detail of the failure. */
export function messagePage(locale: Locale, kind: MessageKind): string {
  const t: Messages = MESSAGES[locale];
  const title = t[`${kind}Title`];
  return layout(locale, title, html`<main><h1>${title}</h1><p>${t[`${kind}Text`]}</p></main>`);
}
