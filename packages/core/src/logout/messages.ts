/**
 * The words of the logout pages, in one language. A host gives its own through the provider's
 * `logoutMessages` option, chosen by the logout request's `ui_locales` (the standalone server
 * does, in every language of its login pages); the provider builds the pages around them.
 */
export interface LogoutMessages {
  /** The pages' language, as a BCP 47 tag: `lang` of the document. */
  lang: string;
  confirmTitle: string;
  confirmHeading: string;
  /** Names the client that asks, when the request named one. */
  confirmAsker: (client: string) => string;
  confirmQuestion: (issuer: string) => string;
  /** The button that signs out. */
  signOut: string;
  signedOutTitle: string;
  signedOutText: string;
  /** The link on to the application, while the other applications are told. */
  continue: string;
  failedTitle: string;
  /** The failure page's text; `reason` says in English what was wrong with the request. */
  failedText: (reason: string) => string;
}

export const ENGLISH_LOGOUT_MESSAGES: LogoutMessages = {
  lang: 'en',
  confirmTitle: 'Sign out',
  confirmHeading: 'Sign out?',
  confirmAsker: (client) => `${client} asks to sign you out.`,
  confirmQuestion: (issuer) => `Do you want to sign out of ${issuer}?`,
  signOut: 'Sign out',
  signedOutTitle: 'Signed out',
  signedOutText: 'You are signed out.',
  continue: 'Continue',
  failedTitle: 'Sign-out failed',
  failedText: (reason) => reason,
};

/** ui_locales tags kept at most, and their longest length (RFC 5646 tags are short). */
const MAX_UI_LOCALES = 8;
const UI_LOCALE = /^[A-Za-z0-9-]{1,35}$/;

/** The `ui_locales` of a logout request (RP-Initiated Logout 1.0 §2), bounded and well-formed. */
export function readUiLocales(value: string | undefined): string[] {
  return (value ?? '')
    .split(' ')
    .filter((tag) => UI_LOCALE.test(tag))
    .slice(0, MAX_UI_LOCALES);
}
