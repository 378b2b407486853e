import type { SuiteBrowser } from '../../support/browser.js';
import { type ModuleOutcome, ModuleRun } from '../../support/checks.js';
import type { Fapi2Op } from '../../support/fapi2-op.js';
import type { Fapi2Context, Fapi2ServerTest } from '../../support/fapi2-server-test.js';
import {
  Fapi2PkceRequired,
  Fapi2PlainPkceRejected,
  Fapi2RedirectUriInAuthorizationRequest,
  Fapi2RequestObjectWithoutRedirectUriFails,
  Fapi2ResponseTypeFails,
  Fapi2TolerateUnregisteredRedirectUri,
  Fapi2UnsignedRequestWithoutParFails,
} from './authorization-request.js';
import { Fapi2ClaimsParameterIdentityClaims } from './claims.js';
import { fapi2DiscoveryEndpointVerification } from './discovery.js';
import {
  Fapi2CheckDpopProofNbfExp,
  Fapi2DpopAuthCodeBindingSuccess,
  Fapi2DpopIatOffsetSucceeds,
  Fapi2DpopNegativeTests,
  Fapi2DpopProofAtParBindingSuccess,
  Fapi2HolderOfKeyRequired,
  Fapi2MismatchedDpopJktFails,
  Fapi2TokenEndpointMismatchedDpopJkt,
  Fapi2TokenEndpointMismatchedDpopProofJkt,
} from './dpop.js';
import {
  Fapi2AccessTokenTypeHeaderCaseSensitivity,
  Fapi2DifferentValueOutside,
  Fapi2HappyFlow,
  Fapi2LongNonce,
  Fapi2LongState,
  Fapi2OtherScopeOrderSucceeds,
  Fapi2StateOnlyOutsideRequestObjectNotUsed,
  Fapi2UserRejectsAuthentication,
  Fapi2With64CharNonceSuccess,
  Fapi2WithoutNonceSuccess,
  Fapi2WithoutStateSuccess,
} from './happy-flows.js';
import {
  Fapi2ParAttemptReuseRequestUri,
  Fapi2ParAttemptToUseExpiredRequestUri,
  Fapi2ParRejectInvalidHttpVerb,
  Fapi2ParRejectRequestUriInForm,
  Fapi2ParRequestUriBoundToClient,
  Fapi2ParReusedRequestUriBeforeAuthentication,
  Fapi2ParWithoutDuplicateParameters,
} from './par.js';
import { Fapi2RefreshToken } from './refresh-token.js';
import {
  Fapi2AuthorizationCodeIsBoundToClient,
  Fapi2ClientAssertionExpiredFails,
  Fapi2ClientAssertionInTokenEndpoint,
  Fapi2ClientAssertionWithoutSubFails,
  Fapi2ClientAssertionWithRS256Fails,
  Fapi2ClientAssertionWrongAudFails,
  Fapi2ClientIdInTokenEndpoint,
  Fapi2CodeVerifierRequired,
  Fapi2ExpiredAuthorizationCode,
  Fapi2IncorrectCodeVerifierRejected,
  Fapi2ParAssertion8SecondsAheadAccepted,
  Fapi2ParAssertionRefused,
  Fapi2ReuseAuthorizationCodeAfterOneSecond,
  PAR_ASSERTION_SPOILERS,
} from './token-endpoint.js';

/**
 * The modules of the suite's fapi2-security-profile-final-test-plan (FAPI2SPFinalTestPlan, the
 * message signing plan's list without its signing modules) that run for the variant a fapi2 realm
 * certifies with — plain_fapi, private_key_jwt, dpop, openid_connect, unsigned, plain_response —
 * in the plan's order, by module id.
 */
const P = 'fapi2-security-profile-final-';
type Create = (context: Fapi2Context) => Fapi2ServerTest;

export const FAPI2_PLAN_ID = 'fapi2-security-profile-final-test-plan';

export const FAPI2_MODULES: ReadonlyArray<readonly [string, Create]> = [
  [`${P}happy-flow`, (c) => new Fapi2HappyFlow(c)],
  [`${P}user-rejects-authentication`, (c) => new Fapi2UserRejectsAuthentication(c)],
  [
    `${P}ensure-authorization-request-without-state-success`,
    (c) => new Fapi2WithoutStateSuccess(c),
  ],
  [
    `${P}ensure-authorization-request-without-nonce-success`,
    (c) => new Fapi2WithoutNonceSuccess(c),
  ],
  [
    `${P}ensure-authorization-request-with-64-char-nonce-success`,
    (c) => new Fapi2With64CharNonceSuccess(c),
  ],
  [`${P}ensure-other-scope-order-succeeds`, (c) => new Fapi2OtherScopeOrderSucceeds(c)],
  [`${P}test-claims-parameter-identity-claims`, (c) => new Fapi2ClaimsParameterIdentityClaims(c)],
  [
    `${P}access-token-type-header-case-sensitivity`,
    (c) => new Fapi2AccessTokenTypeHeaderCaseSensitivity(c),
  ],
  [`${P}check-dpop-proof-nbf-exp`, (c) => new Fapi2CheckDpopProofNbfExp(c)],
  [
    `${P}ensure-dpopproof-with-iat-10seconds-before-succeeds`,
    (c) => new Fapi2DpopIatOffsetSucceeds(c, -10),
  ],
  [
    `${P}ensure-dpopproof-with-iat-10seconds-after-succeeds`,
    (c) => new Fapi2DpopIatOffsetSucceeds(c, 8),
  ],
  [`${P}ensure-mismatched-dpop-jkt-fails`, (c) => new Fapi2MismatchedDpopJktFails(c)],
  [
    `${P}ensure-token-endpoint-fails-with-mismatched-dpop-proof-jkt`,
    (c) => new Fapi2TokenEndpointMismatchedDpopProofJkt(c),
  ],
  [
    `${P}ensure-token-endpoint-fails-with-mismatched-dpop-jkt`,
    (c) => new Fapi2TokenEndpointMismatchedDpopJkt(c),
  ],
  [
    `${P}ensure-dpopproof-at-par-endpoint-binding-success`,
    (c) => new Fapi2DpopProofAtParBindingSuccess(c),
  ],
  [`${P}ensure-dpop-auth-code-binding-success`, (c) => new Fapi2DpopAuthCodeBindingSuccess(c)],
  [
    `${P}ensure-different-nonce-inside-and-outside-request-object`,
    (c) => new Fapi2DifferentValueOutside(c, 'nonce'),
  ],
  [
    `${P}ensure-different-state-inside-and-outside-request-object`,
    (c) => new Fapi2DifferentValueOutside(c, 'state'),
  ],
  [`${P}ensure-authorization-request-with-long-nonce`, (c) => new Fapi2LongNonce(c)],
  [`${P}ensure-authorization-request-with-long-state`, (c) => new Fapi2LongState(c)],
  [
    `${P}state-only-outside-request-object-not-used`,
    (c) => new Fapi2StateOnlyOutsideRequestObjectNotUsed(c),
  ],
  [
    `${P}ensure-request-object-without-redirect-uri-fails`,
    (c) => new Fapi2RequestObjectWithoutRedirectUriFails(c),
  ],
  [
    `${P}plain-fapi-tolerate-unregistered-redirect-uri`,
    (c) => new Fapi2TolerateUnregisteredRedirectUri(c),
  ],
  [
    `${P}ensure-unsigned-authorization-request-without-using-par-fails`,
    (c) => new Fapi2UnsignedRequestWithoutParFails(c),
  ],
  [
    `${P}ensure-redirect-uri-in-authorization-request`,
    (c) => new Fapi2RedirectUriInAuthorizationRequest(c),
  ],
  [
    `${P}ensure-response-type-code-idtoken-fails`,
    (c) => new Fapi2ResponseTypeFails(c, 'code id_token'),
  ],
  [`${P}ensure-response-type-token-fails`, (c) => new Fapi2ResponseTypeFails(c, 'token')],
  [`${P}ensure-client-id-in-token-endpoint`, (c) => new Fapi2ClientIdInTokenEndpoint(c)],
  [`${P}ensure-holder-of-key-required`, (c) => new Fapi2HolderOfKeyRequired(c)],
  [
    `${P}ensure-authorization-code-is-bound-to-client`,
    (c) => new Fapi2AuthorizationCodeIsBoundToClient(c),
  ],
  [
    `${P}attempt-reuse-authorization-code-after-one-second`,
    (c) => new Fapi2ReuseAuthorizationCodeAfterOneSecond(c),
  ],
  [
    `${P}ensure-token-endpoint-fails-with-expired-auth-code`,
    (c) => new Fapi2ExpiredAuthorizationCode(c),
  ],
  [
    `${P}ensure-signed-client-assertion-with-RS256-fails`,
    (c) => new Fapi2ClientAssertionWithRS256Fails(c),
  ],
  [
    `${P}ensure-client-assertion-in-token-endpoint`,
    (c) => new Fapi2ClientAssertionInTokenEndpoint(c),
  ],
  [
    `${P}ensure-client-assertion-with-exp-is-5-minutes-in-past-fails`,
    (c) => new Fapi2ClientAssertionExpiredFails(c),
  ],
  [
    `${P}ensure-client-assertion-with-wrong-aud-fails`,
    (c) => new Fapi2ClientAssertionWrongAudFails(c),
  ],
  [
    `${P}ensure-client-assertion-with-no-sub-fails`,
    (c) => new Fapi2ClientAssertionWithoutSubFails(c),
  ],
  [`${P}dpop-negative-tests`, (c) => new Fapi2DpopNegativeTests(c)],
  [`${P}refresh-token`, (c) => new Fapi2RefreshToken(c)],
  [
    `${P}par-ensure-reused-request-uri-prior-to-auth-completion-succeeds`,
    (c) => new Fapi2ParReusedRequestUriBeforeAuthentication(c),
  ],
  [`${P}par-attempt-reuse-request_uri`, (c) => new Fapi2ParAttemptReuseRequestUri(c)],
  [
    `${P}par-attempt-to-use-expired-request_uri`,
    (c) => new Fapi2ParAttemptToUseExpiredRequestUri(c),
  ],
  [
    `${P}par-ensure-jwt-client-assertions-nbf-8-seconds-in-the-future-is-accepted`,
    (c) => new Fapi2ParAssertion8SecondsAheadAccepted(c),
  ],
  ...Object.entries(PAR_ASSERTION_SPOILERS)
    .filter(([id]) => id.includes('nbf-over-60'))
    .map(([id, spoil]): readonly [string, Create] => [
      id,
      (c) => new Fapi2ParAssertionRefused(c, spoil),
    ]),
  [
    `${P}par-attempt-to-use-request_uri-for-different-client`,
    (c) => new Fapi2ParRequestUriBoundToClient(c),
  ],
  [
    `${P}par-authorization-request-containing-request_uri-form-param`,
    (c) => new Fapi2ParRejectRequestUriInForm(c),
  ],
  [`${P}par-attempt-invalid-http-method`, (c) => new Fapi2ParRejectInvalidHttpVerb(c)],
  [`${P}par-ensure-pkce-required`, (c) => new Fapi2PkceRequired(c)],
  [`${P}ensure-pkce-code-verifier-required`, (c) => new Fapi2CodeVerifierRequired(c)],
  [`${P}incorrect-pkce-code-verifier-rejected`, (c) => new Fapi2IncorrectCodeVerifierRejected(c)],
  [`${P}par-plain-pkce-rejected`, (c) => new Fapi2PlainPkceRejected(c)],
  [`${P}par-without-duplicate-parameters`, (c) => new Fapi2ParWithoutDuplicateParameters(c)],
  ...Object.entries(PAR_ASSERTION_SPOILERS)
    .filter(([id]) => id.includes('-as-audience-'))
    .map(([id, spoil]): readonly [string, Create] => [
      id,
      (c) => new Fapi2ParAssertionRefused(c, spoil),
    ]),
];

export const FAPI2_DISCOVERY_MODULE = `${P}discovery-end-point-verification`;

/**
 * Modules of the plan that do not run for this variant, with the suite's reason (its
 * @VariantNotApplicable on the module): docs/certification.md lists them.
 */
export const FAPI2_NOT_APPLICABLE: ReadonlyArray<{ module: string; reason: string }> = [
  { module: `${P}ensure-registered-redirect-uri`, reason: 'not for plain_fapi' },
  { module: `${P}ensure-server-handles-non-matching-intent-id`, reason: 'openbanking_uk only' },
  { module: `${P}test-essential-acr-sca-claim`, reason: 'openbanking_uk only' },
  { module: `${P}brazil-ensure-bad-payment-signature-fails`, reason: 'openbanking_brazil only' },
  {
    module: `${P}australia-connectid-test-claims-parameter-idtoken-identity-claims`,
    reason: 'connectid_au only',
  },
  { module: `${P}australia-connectid-ensure-invalid-purpose-fails`, reason: 'connectid_au only' },
];

/** Runs one module of the plan by id against the realm, in the tester's browser. */
export async function runFapi2Module(
  op: Fapi2Op,
  browser: SuiteBrowser,
  module: string,
): Promise<ModuleOutcome> {
  const run = new ModuleRun();
  if (module === FAPI2_DISCOVERY_MODULE)
    return run.run(() => fapi2DiscoveryEndpointVerification(op, run));
  const create = FAPI2_MODULES.find(([id]) => id === module)?.[1];
  if (!create) throw new Error(`no module ${module}`);
  return run.run(() => create({ op, run, browser }).start());
}
