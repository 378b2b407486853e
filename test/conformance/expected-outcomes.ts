import type { ResponseType } from './support/state.js';

/**
 * What a realm with the certification settings is expected to get from each module besides a
 * pass: WARNING-level findings (certification passes with them; docs/certification.md explains
 * each) and modules that end as skipped because the server refuses an optional feature the
 * way the specifications say. A module not listed passes with no warning.
 */
export interface ExpectedOutcome {
  module: string;
  /** Only in these plans (all when absent). */
  plans?: readonly string[];
  /** Only with these response types (all when absent). */
  responseTypes?: readonly ResponseType[];
  /** The conditions that end in a warning, in the order the module calls them. */
  warnings?: readonly string[];
  /** The reason the module ends as skipped (a pattern). */
  skipped?: RegExp;
}

export const EXPECTED_OUTCOMES: readonly ExpectedOutcome[] = [
  {
    // docs/interface.md §4.5: the access token only in the Authorization header (RFC 9700 §2.5).
    module: 'oidcc-userinfo-post-body',
    warnings: ['UserInfoEndpointWithAccessTokenInBodyNotSupported'],
  },
  {
    // No request objects: OpenID Connect Core §6.1's request_not_supported.
    module: 'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
    skipped: /^request_not_supported/,
  },
  // The login of the test realm names no acr: the ID token says "0", not one of the acr_values
  // the module sent (a voluntary claim; a host whose login reports one of them passes cleanly).
  {
    // Both ID tokens (authorization and token endpoints) are checked.
    module: 'oidcc-ensure-request-with-acr-values-succeeds',
    responseTypes: ['code id_token', 'code id_token token'],
    warnings: [
      'ValidateIdTokenACRClaimAgainstAcrValuesRequest',
      'ValidateIdTokenACRClaimAgainstAcrValuesRequest',
    ],
  },
  {
    module: 'oidcc-ensure-request-with-acr-values-succeeds',
    warnings: ['ValidateIdTokenACRClaimAgainstAcrValuesRequest'],
  },
  {
    // RFC 9126 §4: a request_uri is taken on its first use, so a second visit before the user
    // signed in is shown an error (FAPI 2.0 SP §5.3.2.2 note 3 recommends tolerating it).
    module:
      'fapi2-security-profile-final-par-ensure-reused-request-uri-prior-to-auth-completion-succeeds',
    warnings: ['WarningAboutRequestUriError'],
  },
  {
    // Userinfo answers carry iss, aud, iat, nbf and exp, and ID tokens sid (OpenID Connect
    // Front-Channel and Back-Channel Logout): names the suite's list of standard claims lacks.
    module: 'fapi2-security-profile-final-test-claims-parameter-identity-claims',
    warnings: ['CheckForUnexpectedClaimsInUserinfo', 'CheckForUnexpectedClaimsInIdToken'],
  },
];
