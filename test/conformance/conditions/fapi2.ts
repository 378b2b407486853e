import { type Condition, condition, fail } from '../support/checks.js';
import type { FlowState, HttpAnswer } from '../support/state.js';
import { estimatedEntropy } from './authorization-response.js';
import type { Discovery } from './discovery.js';

/**
 * The conditions the FAPI 2.0 Security Profile modules call beyond those of the OpenID Connect
 * plans, under the suite's names. Most look at one HTTP answer (of the PAR, token or resource
 * endpoint); the callback's are on the flow, as the others of conditions/authorization-response.ts.
 */

/** FAPI2_ALLOWED_ALGS of the suite (FAPI 2.0 SP §5.4-1). */
export const FAPI2_ALGORITHMS = ['PS256', 'ES256', 'EdDSA', 'Ed25519'];

const json = (answer: HttpAnswer) => answer.json ?? {};
const mediaType = (answer: HttpAnswer) => answer.headers.get('content-type')?.split(';')[0]?.trim();

/** A status the answer must have. */
export const statusIs = (name: string, allowed: (status: number) => boolean) =>
  condition(name, (answer: HttpAnswer) => {
    if (!allowed(answer.status)) fail(`the endpoint answered ${answer.status}`);
  });

export const EnsureHttpStatusCodeIs200or201 = statusIs(
  'EnsureHttpStatusCodeIs200or201',
  (status) => status === 200 || status === 201,
);
export const EnsureHttpStatusCodeIs400or401 = statusIs(
  'EnsureHttpStatusCodeIs400or401',
  (status) => status === 400 || status === 401,
);
export const EnsureHttpStatusCodeIs4xx = statusIs(
  'EnsureHttpStatusCodeIs4xx',
  (status) => status >= 400 && status < 500,
);
export const CheckTokenEndpointHttpStatus400or401 = statusIs(
  'CheckTokenEndpointHttpStatus400or401',
  (status) => status === 400 || status === 401,
);
/** EnsureParHTTPError: PAR takes POST only (RFC 9126 §2.1). */
export const EnsureParHTTPError = statusIs(
  'EnsureParHTTPError',
  (status) => status >= 400 && status < 500,
);

/** The `error` of a JSON error answer must be one of `codes`. */
export const errorIn = (name: string, codes: readonly string[]) =>
  condition(name, (answer: HttpAnswer) => {
    const error = json(answer).error;
    if (typeof error !== 'string' || !codes.includes(error))
      fail(`error ${String(error)}, expected ${codes.join(' or ')}`);
  });

/** AbstractCheckTokenEndpointReturnedExpectedErrorAndHttpStatus: each error with its statuses. */
const errorWithStatus = (name: string, expected: Record<string, readonly number[]>) =>
  condition(name, (answer: HttpAnswer) => {
    const error = String(json(answer).error);
    const statuses = expected[error];
    if (!statuses) fail(`error ${error}, expected ${Object.keys(expected).join(' or ')}`);
    if (!statuses.includes(answer.status)) fail(`${error} with status ${answer.status}`);
  });

export const CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError = errorWithStatus(
  'CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError',
  { invalid_request: [400], invalid_grant: [400], invalid_dpop_proof: [400] },
);
export const CheckTokenEndpointReturnedInvalidClientGrantOrRequestError = errorWithStatus(
  'CheckTokenEndpointReturnedInvalidClientGrantOrRequestError',
  { invalid_request: [400], invalid_grant: [400], invalid_client: [400, 401] },
);

export const CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError = condition(
  'CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError',
  (answer: HttpAnswer) => {
    const allowed = json(answer).error === 'invalid_client' ? [400, 401] : [400];
    if (!allowed.includes(answer.status)) fail(`the token endpoint answered ${answer.status}`);
  },
);
export const CheckErrorFromTokenEndpointResponseErrorInvalidClient = errorIn(
  'CheckErrorFromTokenEndpointResponseErrorInvalidClient',
  ['invalid_client'],
);
export const CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidRequest = errorIn(
  'CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidRequest',
  ['invalid_client', 'invalid_request'],
);
export const CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidGrant = errorIn(
  'CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidGrant',
  ['invalid_client', 'invalid_grant'],
);

/** Conditions that only ever fail: the suite calls them when the server accepted what it must not. */
const alwaysFails = (name: string, message: string): Condition<unknown> =>
  condition(name, () => fail(message));
export const ServerAllowedReusingAuthorizationCode = alwaysFails(
  'ServerAllowedReusingAuthorizationCode',
  'the token endpoint redeemed a code a second time',
);
export const ServerAllowedExpiredAuthorizationCode = alwaysFails(
  'ServerAllowedExpiredAuthorizationCode',
  'the token endpoint redeemed a code 62 seconds old',
);
export const WarningAboutRejectingLongState = alwaysFails(
  'WarningAboutRejectingLongState',
  'the server refused a state of 1000 characters',
);
export const WarningAboutRequestUriError = alwaysFails(
  'WarningAboutRequestUriError',
  'the server refused the request_uri on a second visit before the user signed in',
);

// The PAR endpoint (RFC 9126 §2.2, §2.3)

export const CheckPAREndpointResponse201WithNoError = condition(
  'CheckPAREndpointResponse201WithNoError',
  (answer: HttpAnswer) => {
    if (answer.status !== 201) fail(`the PAR endpoint answered ${answer.status}`);
    if (json(answer).error !== undefined) fail(`error ${String(json(answer).error)}`);
  },
);
export const CheckForRequestUriValue = condition(
  'CheckForRequestUriValue',
  (answer: HttpAnswer) => {
    if (typeof json(answer).request_uri !== 'string') fail('no request_uri');
  },
);
export const CheckForPARResponseExpiresIn = condition(
  'CheckForPARResponseExpiresIn',
  (answer: HttpAnswer) => {
    const expiresIn = json(answer).expires_in;
    if (typeof expiresIn !== 'number' || expiresIn <= 0) fail('no positive expires_in');
  },
);
export const EnsureContentTypeJson = condition('EnsureContentTypeJson', (answer: HttpAnswer) => {
  if (mediaType(answer) !== 'application/json') fail(`content-type ${mediaType(answer)}`);
});
export const EnsureMinimumRequestUriEntropy = condition(
  'EnsureMinimumRequestUriEntropy',
  (answer: HttpAnswer) => {
    const bits = estimatedEntropy(String(json(answer).request_uri ?? ''));
    if (bits <= 96) fail(`request_uri has about ${bits} bits`);
  },
);
export const EnsurePARInvalidRequestError = errorIn('EnsurePARInvalidRequestError', [
  'invalid_request',
]);
export const EnsurePARInvalidRequestOrInvalidRequestObjectError = errorIn(
  'EnsurePARInvalidRequestOrInvalidRequestObjectError',
  ['invalid_request', 'invalid_request_object'],
);
export const EnsurePARInvalidRequestOrInvalidDpopProof = errorIn(
  'EnsurePARInvalidRequestOrInvalidDpopProof',
  ['invalid_request', 'invalid_dpop_proof'],
);
export const EnsurePARInvalidRequestOrInvalidRequestObjectOrRequestUriNotSupportedError = errorIn(
  'EnsurePARInvalidRequestOrInvalidRequestObjectOrRequestUriNotSupportedError',
  ['invalid_request', 'invalid_request_object', 'request_uri_not_supported'],
);
export const EnsurePARUnsupportedResponseTypeOrInvalidRequestOrUnauthorizedClientError = errorIn(
  'EnsurePARUnsupportedResponseTypeOrInvalidRequestOrUnauthorizedClientError',
  ['unsupported_response_type', 'invalid_request', 'unauthorized_client'],
);
export const CheckErrorFromParEndpointResponseErrorInvalidClientOrInvalidRequest = errorIn(
  'CheckErrorFromParEndpointResponseErrorInvalidClientOrInvalidRequest',
  ['invalid_client', 'invalid_request'],
);

// The authorization response (FAPI 2.0 SP §5.3.2.2, RFC 9207)

const fragment = (state: FlowState) => state.callback?.fragment ?? {};

export const RejectErrorInUrlFragment = condition(
  'RejectErrorInUrlFragment',
  (state: FlowState) => {
    if (fragment(state).error !== undefined) fail('an error in the fragment');
  },
);
export const RejectAuthCodeInUrlFragment = condition(
  'RejectAuthCodeInUrlFragment',
  (state: FlowState) => {
    if (fragment(state).code !== undefined) fail('a code in the fragment');
  },
);
export const RejectStateInUrlFragmentForCodeFlow = condition(
  'RejectStateInUrlFragmentForCodeFlow',
  (state: FlowState) => {
    if (fragment(state).state !== undefined) fail('state in the fragment');
  },
);
export const RequireIssInAuthorizationResponse = condition(
  'RequireIssInAuthorizationResponse',
  (state: FlowState) => {
    if (state.response.iss === undefined) fail('no iss in the authorization response');
    if (state.response.iss !== state.server.issuer) fail(`iss ${state.response.iss}`);
  },
);
/** ValidateSuccessfulAuthCodeFlowResponseFromAuthorizationEndpoint: nothing but what RFCs define. */
export const ValidateSuccessfulAuthCodeFlowResponseFromAuthorizationEndpoint = condition(
  'ValidateSuccessfulAuthCodeFlowResponseFromAuthorizationEndpoint',
  (state: FlowState) => {
    const expected = new Set(['code', 'state', 'iss', 'session_state']);
    const others = Object.keys(state.response).filter((name) => !expected.has(name));
    // The second client's redirect URI carries its own query (AddRedirectUriQuerySuffix).
    const own = new URL(state.redirectUri).searchParams;
    const unexpected = others.filter((name) => !own.has(name));
    if (unexpected.length > 0) fail(`unexpected parameters: ${unexpected.join(', ')}`);
  },
);
export const VerifyNoStateInAuthorizationResponse = condition(
  'VerifyNoStateInAuthorizationResponse',
  (state: FlowState) => {
    if (state.response.state !== undefined) fail('state came back though none was sent');
  },
);

// ID tokens and access tokens (FAPI 2.0 SP §5.4)

export const FAPI2ValidateIdTokenSigningAlg = condition(
  'FAPI2ValidateIdTokenSigningAlg',
  (state: FlowState) => {
    const alg = String(state.idToken?.header.alg);
    if (!FAPI2_ALGORITHMS.includes(alg)) fail(`the ID token is signed with ${alg}`);
  },
);
export const EnsureMinimumAccessTokenLength = condition(
  'EnsureMinimumAccessTokenLength',
  (state: FlowState) => {
    if (Buffer.byteLength(state.accessToken ?? '') * 8 < 128) fail('under 128 bits');
  },
);

// The protected resource

export const CheckForDateHeaderInResourceResponse = condition(
  'CheckForDateHeaderInResourceResponse',
  (answer: HttpAnswer) => {
    const date = answer.headers.get('date');
    if (!date || Number.isNaN(Date.parse(date))) fail('no valid Date header');
  },
);
export const EnsureMatchingFAPIInteractionId = condition(
  'EnsureMatchingFAPIInteractionId',
  ({ answer, sent }: { answer: HttpAnswer; sent: string }) => {
    const echoed = answer.headers.get('x-fapi-interaction-id');
    if (echoed !== null && echoed !== sent) fail(`x-fapi-interaction-id ${echoed}`);
  },
);

// Discovery (FAPI2SPFinalDiscoveryEndpointVerification)

/** AbstractValidateJsonArray with at least one of `values`. */
const listsOneOf = (name: string, member: string, values: readonly string[]) =>
  condition(name, ({ server }: Discovery) => {
    const found = server[member];
    if (!Array.isArray(found)) fail(`${member} is not an array`);
    if (!values.some((value) => found.includes(value))) fail(`${member} lacks ${values.join('/')}`);
  });

export const FAPI2CheckDpopSigningAlgValuesSupported = listsOneOf(
  'FAPI2CheckDpopSigningAlgValuesSupported',
  'dpop_signing_alg_values_supported',
  FAPI2_ALGORITHMS,
);
export const FAPI2CheckDiscEndpointIdTokenSigningAlgValuesSupported = listsOneOf(
  'FAPI2CheckDiscEndpointIdTokenSigningAlgValuesSupported',
  'id_token_signing_alg_values_supported',
  FAPI2_ALGORITHMS,
);
export const FAPI2CheckDiscEndpointTokenEndpointAuthSigningAlgValuesSupported = listsOneOf(
  'FAPI2CheckDiscEndpointTokenEndpointAuthSigningAlgValuesSupported',
  'token_endpoint_auth_signing_alg_values_supported',
  FAPI2_ALGORITHMS,
);
export const EnsureServerConfigurationSupportsPrivateKeyJwt = listsOneOf(
  'EnsureServerConfigurationSupportsPrivateKeyJwt',
  'token_endpoint_auth_methods_supported',
  ['private_key_jwt'],
);
export const EnsureServerConfigurationSupportsCodeChallengeMethodS256 = listsOneOf(
  'EnsureServerConfigurationSupportsCodeChallengeMethodS256',
  'code_challenge_methods_supported',
  ['S256'],
);
export const CheckDiscEndpointResponseTypeCodeSupported = listsOneOf(
  'CheckDiscEndpointResponseTypeCodeSupported',
  'response_types_supported',
  ['code'],
);
export const CheckDiscEndpointGrantTypesSupportedContainsAuthorizationCode = listsOneOf(
  'CheckDiscEndpointGrantTypesSupportedContainsAuthorizationCode',
  'grant_types_supported',
  ['authorization_code'],
);
export const EnsureAuthorizationResponseIssParameterSupportedIsTrue = condition(
  'EnsureAuthorizationResponseIssParameterSupportedIsTrue',
  ({ server }: Discovery) => {
    if (server.authorization_response_iss_parameter_supported !== true) fail('not true');
  },
);
export const CheckDiscEndpointPARSupported = condition(
  'CheckDiscEndpointPARSupported',
  ({ server }: Discovery) => {
    const endpoint = server.pushed_authorization_request_endpoint;
    if (typeof endpoint !== 'string' || !endpoint.startsWith('https://'))
      fail('no https pushed_authorization_request_endpoint');
  },
);
export const CheckDiscRequirePushedAuthorizationRequestsIsABoolean = condition(
  'CheckDiscRequirePushedAuthorizationRequestsIsABoolean',
  ({ server }: Discovery) => {
    const value = server.require_pushed_authorization_requests;
    if (value !== undefined && typeof value !== 'boolean') fail('not a boolean');
  },
);
/** FAPI2CheckDiscEndpointUserinfoSigningAlgValuesSupported: only when the server lists some. */
export const FAPI2CheckDiscEndpointUserinfoSigningAlgValuesSupported = listsOneOf(
  'FAPI2CheckDiscEndpointUserinfoSigningAlgValuesSupported',
  'userinfo_signing_alg_values_supported',
  FAPI2_ALGORITHMS,
);
