/**
 * What the example apps share whatever their framework (examples/*-app/src/app.ts hold only the
 * routes and how their framework answers): the demo realm, the user table, the CSRF tokens of the
 * forms and the pages.
 */
export { csrfToken, validCsrf } from './csrf.js';
export {
  banner,
  createDemoProvider,
  type DemoAppOptions,
  type DemoRealmAdditions,
  DISCOVERY_PATH,
  REALM,
} from './demo.js';
export { finishInteraction, pendingInteraction } from './interactions.js';
export {
  consentPage,
  EXPIRED_PAGE,
  FORBIDDEN_PAGE,
  homePage,
  loginPage,
  PAGE_HEADERS,
} from './pages.js';
export { accounts, checkPassword, displayName } from './users.js';
