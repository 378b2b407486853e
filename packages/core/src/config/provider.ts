import { z } from 'zod';
import { ConfigError, type ConfigIssue, formatPath } from './issues.js';
import { baseUrl } from './primitives.js';

/** How many of one kind of pending request a realm keeps: a whole number from 1 to ten million. */
const perRealmLimit = (defaultLimit: number, description: string) =>
  z.number().int().min(1).max(10_000_000).default(defaultLimit).describe(description);

/** Bounds on what requests nobody authenticated make the provider store (docs/security.md). */
export const providerLimitsSchema = z.strictObject({
  interactionsPerRealm: perRealmLimit(
    10_000,
    'Interactions one realm keeps waiting for their page, and as many again whose page was shown; beyond it the oldest is dropped (the user starts over).',
  ),
  logoutConfirmationsPerRealm: perRealmLimit(
    1_000,
    'Logout confirmations one realm keeps waiting for their button; beyond it the oldest is dropped.',
  ),
  deviceRequestsPerRealm: perRealmLimit(
    10_000,
    'Device authorization requests (RFC 8628) one realm keeps waiting for their user: a public client needs no secret to make one. Beyond it the oldest is dropped (its device starts over).',
  ),
});

/** The plain-data options of `createProvider`; the adapters it takes (store, keys…) are typed in provider.ts. */
export const providerOptionsSchema = z.strictObject({
  baseUrl: baseUrl.describe(
    'Public origin plus mount path Gatehouse is reached at, without query or fragment; trailing slashes are removed. The issuer of realm R is `{baseUrl}/oauth/R`.',
  ),
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024)
    .describe('Largest accepted request body in bytes; a larger one is answered 413.'),
  limits: providerLimitsSchema
    .prefault({})
    .describe(
      'Bounds on what requests nobody authenticated make the provider store (docs/security.md).',
    ),
});

export type ProviderLimits = z.output<typeof providerOptionsSchema>['limits'];

const hostObject = (what: string) =>
  z.custom((value) => typeof value === 'object' && value !== null, `must be ${what}`).optional();
const hostFunction = (what: string) =>
  z.custom((value) => typeof value === 'function', `must be ${what}`).optional();

/**
 * Every option of `createProvider`, so that a misspelt or misplaced one (`realm:`,
 * `interactionURL:`) fails at start-up with its path instead of being ignored or becoming a
 * TypeError. The host's objects are checked for their kind only; realms are validated one by one
 * by the realm source.
 */
const createProviderOptionsSchema = providerOptionsSchema.extend({
  realms: z.custom(
    (value) => Array.isArray(value) || typeof value === 'function',
    'must be a list of realm configurations or a loader function',
  ),
  store: hostObject('a Store'),
  keys: hostObject('a KeyStore'),
  signer: hostObject('a JwsSigner'),
  verifier: hostObject('a JwsVerifier'),
  accounts: hostObject('an Accounts'),
  authenticatorPush: hostObject('an AuthenticatorPush'),
  interactionUrl: hostFunction('a function of the interaction'),
  deviceVerificationUrl: hostFunction('a function of the realm name'),
  now: hostFunction('a function returning milliseconds since the epoch'),
  onError: hostFunction('a function of the error and the request'),
  onEvent: hostFunction('a function of the event'),
  instrumentation: hostObject('an Instrumentation'),
  outbound: hostObject('an OutboundTransport'),
  fetch: hostFunction('a fetch function'),
  allowClientIdMetadataDocument: hostFunction('a function of the document URL and the realm name'),
  logoutMessages: hostFunction('a function of the ui_locales'),
});

/** The names of the options createProvider checks; provider.ts fails to compile without one. */
export type CheckedOptionName = keyof typeof createProviderOptionsSchema.shape;

/** The plain-data options, or a ConfigError listing every problem of `options`. */
export function parseProviderOptions(options: unknown): z.output<typeof providerOptionsSchema> {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError([
      { path: '', message: 'createProvider takes an options object: { baseUrl, realms, … }' },
    ]);
  }
  const result = createProviderOptionsSchema
    .refine((given) => given.outbound === undefined || given.fetch === undefined, {
      path: ['fetch'],
      message: 'is the fetch of the default transport: give outbound or fetch, not both',
    })
    .safeParse(options);
  if (!result.success) throw new ConfigError(result.error.issues.flatMap(optionIssues));
  const { baseUrl, maxBodyBytes, limits } = result.data;
  return { baseUrl, maxBodyBytes, limits };
}

const OPTION_NAMES = Object.keys(createProviderOptionsSchema.shape);

/** A zod issue as ConfigIssues; an unknown option gets its own path, and the option meant if any. */
function optionIssues(issue: z.core.$ZodIssue): ConfigIssue[] {
  if (issue.code !== 'unrecognized_keys' || issue.path.length > 0) {
    return [{ path: formatPath(issue.path), message: issue.message }];
  }
  return issue.keys.map((key) => {
    const meant = OPTION_NAMES.find(
      (name) => name.toLowerCase() === key.toLowerCase() || name === `${key}s`,
    );
    const unknown = 'is not an option of createProvider';
    return { path: key, message: meant ? `${unknown}; did you mean ${meant}?` : unknown };
  });
}
