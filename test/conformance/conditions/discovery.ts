import { condition, fail } from '../support/checks.js';
import type { HttpAnswer } from '../support/state.js';

/** The suite's checks of a discovery document (OIDCCDiscoveryEndpointVerification and friends). */

export interface Discovery {
  /** Where the document was fetched from (the suite's server.discoveryUrl). */
  url: string;
  answer: HttpAnswer;
  server: Record<string, unknown>;
}

const WELL_KNOWN = '/.well-known/openid-configuration';

/** The endpoints every module needs are named, as URLs: the suite's CheckServerConfiguration. */
export const CheckServerConfiguration = condition(
  'CheckServerConfiguration',
  (server: Record<string, unknown>) => {
    for (const key of ['authorization_endpoint', 'token_endpoint', 'issuer']) {
      if (typeof server[key] !== 'string' || !URL.canParse(server[key])) fail(`no valid ${key}`);
    }
  },
);

export const EnsureDiscoveryEndpointResponseStatusCodeIs200 = condition(
  'EnsureDiscoveryEndpointResponseStatusCodeIs200',
  ({ answer }: Discovery) => {
    if (answer.status !== 200) fail(`discovery answered ${answer.status}`);
  },
);

export const CheckDiscoveryEndpointReturnedJsonContentType = condition(
  'CheckDiscoveryEndpointReturnedJsonContentType',
  ({ answer }: Discovery) => {
    const type = answer.headers.get('content-type')?.split(';')[0]?.trim();
    if (type !== 'application/json') fail(`content-type ${String(type)}`);
  },
);

/** AbstractValidateJsonArray: the member is an array with at least `minimum` of `values`. */
const arrayContaining = (
  name: string,
  member: string,
  values: string[],
  minimum: number,
  sameSet = false,
) =>
  condition(name, ({ server }: Discovery) => {
    const found = server[member];
    if (found === undefined) fail(`${member}: not found`);
    if (!Array.isArray(found)) fail(`${member} should be an array`);
    const equal = (a: string, b: string) =>
      sameSet ? a.split(' ').sort().join(' ') === b.split(' ').sort().join(' ') : a === b;
    const matches = values.filter((value) => found.some((item) => equal(value, String(item))));
    if (matches.length < minimum) fail(`${member} lacks ${values.join(' / ')}`);
  });

export const OIDCCCheckDiscEndpointResponseTypesSupported = arrayContaining(
  'OIDCCCheckDiscEndpointResponseTypesSupported',
  'response_types_supported',
  ['code', 'code id_token', 'id_token', 'token id_token', 'code id_token token', 'code token'],
  1,
  true,
);

export const CheckDiscEndpointDiscoveryUrl = condition(
  'CheckDiscEndpointDiscoveryUrl',
  ({ url }: Discovery) => {
    const parsed = URL.parse(url);
    if (!parsed) fail('the discovery URL does not parse');
    if (!parsed.pathname.endsWith(WELL_KNOWN)) fail(`the discovery URL lacks ${WELL_KNOWN}`);
    if (parsed.protocol !== 'https:') fail('the discovery URL is not https');
  },
);

export const CheckDiscEndpointIssuer = condition(
  'CheckDiscEndpointIssuer',
  ({ url, server }: Discovery) => {
    if (typeof server.issuer !== 'string') fail('no issuer');
    const trim = (value: string) => value.replace(/\/$/, '');
    const expected = url.endsWith(WELL_KNOWN) ? url.slice(0, -WELL_KNOWN.length) : url;
    if (trim(server.issuer) !== trim(expected))
      fail(`issuer ${server.issuer} is not where discovery is`);
  },
);

export const CheckDiscEndpointIssuerIsValidUrl = condition(
  'CheckDiscEndpointIssuerIsValidUrl',
  ({ server }: Discovery) => {
    const issuer = URL.parse(String(server.issuer));
    if (issuer?.protocol !== 'https:') fail('the issuer is not an https URL');
    if (issuer.hash || issuer.search || issuer.username || issuer.password) {
      fail('the issuer has a fragment, a query or userinfo (RFC 8414 §2)');
    }
  },
);

type MemberType = 'uri' | 'string' | 'strings' | 'boolean' | 'object';

/**
 * RFC 8414 §2 and the IANA "OAuth Authorization Server Metadata" registry (OpenID Connect
 * Discovery, Session Management, logout, CIBA, PAR, DPoP, RFC 9207 …): each member's type.
 */
const METADATA: Record<string, MemberType> = {
  ...Object.fromEntries(
    [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'registration_endpoint',
      'service_documentation',
      'op_policy_uri',
      'op_tos_uri',
      'revocation_endpoint',
      'introspection_endpoint',
      'userinfo_endpoint',
      'end_session_endpoint',
      'check_session_iframe',
      'pushed_authorization_request_endpoint',
      'backchannel_authentication_endpoint',
      'device_authorization_endpoint',
    ].map((name) => [name, 'uri' as const]),
  ),
  ...Object.fromEntries(
    [
      'scopes_supported',
      'response_types_supported',
      'response_modes_supported',
      'grant_types_supported',
      'token_endpoint_auth_methods_supported',
      'token_endpoint_auth_signing_alg_values_supported',
      'ui_locales_supported',
      'revocation_endpoint_auth_methods_supported',
      'revocation_endpoint_auth_signing_alg_values_supported',
      'introspection_endpoint_auth_methods_supported',
      'introspection_endpoint_auth_signing_alg_values_supported',
      'code_challenge_methods_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      'id_token_encryption_alg_values_supported',
      'id_token_encryption_enc_values_supported',
      'userinfo_signing_alg_values_supported',
      'userinfo_encryption_alg_values_supported',
      'userinfo_encryption_enc_values_supported',
      'request_object_signing_alg_values_supported',
      'request_object_encryption_alg_values_supported',
      'request_object_encryption_enc_values_supported',
      'display_values_supported',
      'claim_types_supported',
      'claims_supported',
      'claims_locales_supported',
      'acr_values_supported',
      'prompt_values_supported',
      'dpop_signing_alg_values_supported',
      'backchannel_token_delivery_modes_supported',
      'backchannel_authentication_request_signing_alg_values_supported',
      'authorization_signing_alg_values_supported',
      'authorization_encryption_alg_values_supported',
      'authorization_encryption_enc_values_supported',
      'introspection_signing_alg_values_supported',
      'introspection_encryption_alg_values_supported',
      'introspection_encryption_enc_values_supported',
      'authorization_details_types_supported',
    ].map((name) => [name, 'strings' as const]),
  ),
  ...Object.fromEntries(
    [
      'claims_parameter_supported',
      'request_parameter_supported',
      'request_uri_parameter_supported',
      'require_request_uri_registration',
      'frontchannel_logout_supported',
      'frontchannel_logout_session_supported',
      'backchannel_logout_supported',
      'backchannel_logout_session_supported',
      'require_pushed_authorization_requests',
      'backchannel_user_code_parameter_supported',
      'tls_client_certificate_bound_access_tokens',
      'authorization_response_iss_parameter_supported',
      'require_signed_request_object',
    ].map((name) => [name, 'boolean' as const]),
  ),
  mtls_endpoint_aliases: 'object',
  signed_metadata: 'string',
};

const hasType = (value: unknown, type: MemberType) =>
  type === 'uri'
    ? typeof value === 'string' && URL.canParse(value)
    : type === 'strings'
      ? Array.isArray(value) && value.every((item) => typeof item === 'string')
      : type === 'object'
        ? value !== null && typeof value === 'object' && !Array.isArray(value)
        : typeof value === type;

export const ValidateServerMetadataAgainstSchema = condition(
  'ValidateServerMetadataAgainstSchema',
  ({ server }: Discovery) => {
    const wrong = Object.entries(server).filter(
      ([member, value]) => METADATA[member] !== undefined && !hasType(value, METADATA[member]),
    );
    if (wrong.length > 0)
      fail(`members of the wrong type: ${wrong.map(([member]) => member).join(', ')}`);
  },
);

export const CheckForUnexpectedParametersInServerMetadata = condition(
  'CheckForUnexpectedParametersInServerMetadata',
  ({ server }: Discovery) => {
    const unknown = Object.keys(server).filter((member) => METADATA[member] === undefined);
    if (unknown.length > 0) fail(`members no registry defines: ${unknown.join(', ')}`);
  },
);

export const CheckDiscEndpointSubjectTypesSupported = arrayContaining(
  'CheckDiscEndpointSubjectTypesSupported',
  'subject_types_supported',
  ['public', 'pairwise'],
  1,
);

export const OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported = arrayContaining(
  'OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported',
  'id_token_signing_alg_values_supported',
  ['RS256'],
  1,
);

/** AbstractJsonUriIsValidAndHttps. */
export const httpsUrl = (name: string, member: string) =>
  condition(name, ({ server }: Discovery) => {
    const value = server[member];
    if (value === undefined) fail(`${member}: URL not found`);
    const url = typeof value === 'string' ? URL.parse(value) : null;
    if (!url) fail(`${member} is not a URL`);
    if (url.protocol !== 'https:') fail(`${member} must use https`);
  });

export const CheckDiscEndpointAuthorizationEndpoint = httpsUrl(
  'CheckDiscEndpointAuthorizationEndpoint',
  'authorization_endpoint',
);
export const CheckDiscEndpointTokenEndpoint = httpsUrl(
  'CheckDiscEndpointTokenEndpoint',
  'token_endpoint',
);
export const CheckDiscEndpointUserinfoEndpoint = httpsUrl(
  'CheckDiscEndpointUserinfoEndpoint',
  'userinfo_endpoint',
);
export const CheckDiscEndpointRegistrationEndpoint = httpsUrl(
  'CheckDiscEndpointRegistrationEndpoint',
  'registration_endpoint',
);
export const CheckJwksUri = httpsUrl('CheckJwksUri', 'jwks_uri');
export const CheckDiscEndSessionEndpoint = httpsUrl(
  'CheckDiscEndSessionEndpoint',
  'end_session_endpoint',
);
export const CheckDiscCheckSessionIframe = httpsUrl(
  'CheckDiscCheckSessionIframe',
  'check_session_iframe',
);

export const CheckDiscEndpointAllEndpointsAreHttps = condition(
  'CheckDiscEndpointAllEndpointsAreHttps',
  (discovery: Discovery) => {
    for (const member of Object.keys(discovery.server).filter((key) => key.endsWith('_endpoint'))) {
      httpsUrl('CheckDiscEndpointAllEndpointsAreHttps', member).check(discovery);
    }
  },
);

const booleanIs = (name: string, member: string, required: boolean, byDefault: boolean) =>
  condition(name, ({ server }: Discovery) => {
    const value = server[member];
    if (value === undefined && byDefault !== required)
      fail(`${member} is absent, and defaults to ${byDefault}`);
    if (value !== undefined && typeof value !== 'boolean') fail(`${member} is not a boolean`);
    if (value !== undefined && value !== required) fail(`${member} must be ${required}`);
  });

export const CheckDiscEndpointRequestParameterSupported = booleanIs(
  'CheckDiscEndpointRequestParameterSupported',
  'request_parameter_supported',
  true,
  false,
);
export const CheckDiscEndpointRequestUriParameterSupported = booleanIs(
  'CheckDiscEndpointRequestUriParameterSupported',
  'request_uri_parameter_supported',
  true,
  true,
);
export const CheckDiscEndpointClaimsParameterSupported = booleanIs(
  'CheckDiscEndpointClaimsParameterSupported',
  'claims_parameter_supported',
  true,
  false,
);

export const CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256 = arrayContaining(
  'CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256',
  'request_object_signing_alg_values_supported',
  ['RS256'],
  1,
);

export const OIDCCCheckDiscEndpointClaimsSupported = arrayContaining(
  'OIDCCCheckDiscEndpointClaimsSupported',
  'claims_supported',
  [],
  0,
);

export const OIDCCCheckDiscEndpointGrantTypesSupported = condition(
  'OIDCCCheckDiscEndpointGrantTypesSupported',
  ({ server }: Discovery) => {
    const grants = server.grant_types_supported;
    if (grants === undefined) return;
    if (!Array.isArray(grants)) fail('grant_types_supported must be an array');
    if (grants.length === 0) fail('grant_types_supported is empty');
  },
);

export const CheckDiscEndpointScopesSupportedContainsOpenId = arrayContaining(
  'CheckDiscEndpointScopesSupportedContainsOpenId',
  'scopes_supported',
  ['openid'],
  1,
);

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
export const CheckDiscEndpointScopesSupportedSyntax = condition(
  'CheckDiscEndpointScopesSupportedSyntax',
  ({ server }: Discovery) => {
    const scopes = server.scopes_supported;
    if (scopes === undefined) return;
    if (!Array.isArray(scopes)) fail('scopes_supported is not an array');
    const bad = scopes.filter(
      (scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope),
    );
    if (bad.length > 0) fail(`invalid scope tokens: ${bad.join(', ')}`);
  },
);

/** BCP 47 (RFC 5646 §2.1) in the shape browsers and libraries use: language, script, region. */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?(-[a-z\d]{5,8}|-\d[a-z\d]{3})*$/i;

const localesOf = (server: Record<string, unknown>) =>
  ['ui_locales_supported', 'claims_locales_supported'].flatMap((member) =>
    Array.isArray(server[member])
      ? (server[member] as unknown[]).map((tag) => [member, tag] as const)
      : [],
  );

export const CheckDiscEndpointLocalesSyntax = condition(
  'CheckDiscEndpointLocalesSyntax',
  ({ server }: Discovery) => {
    for (const member of ['ui_locales_supported', 'claims_locales_supported']) {
      if (server[member] !== undefined && !Array.isArray(server[member]))
        fail(`${member} is not an array`);
    }
    const bad = localesOf(server).filter(
      ([, tag]) => typeof tag !== 'string' || !LANGUAGE_TAG.test(tag),
    );
    if (bad.length > 0)
      fail(`invalid language tags: ${bad.map(([, tag]) => String(tag)).join(', ')}`);
  },
);

export const CheckDiscEndpointLocalesCanonicalCasing = condition(
  'CheckDiscEndpointLocalesCanonicalCasing',
  ({ server }: Discovery) => {
    const canonical = (tag: string) =>
      tag
        .split('-')
        .map((part, index) =>
          index === 0
            ? part.toLowerCase()
            : part.length === 4 && /^[a-z]+$/i.test(part)
              ? part[0]?.toUpperCase() + part.slice(1).toLowerCase()
              : part.length === 2
                ? part.toUpperCase()
                : part.toLowerCase(),
        )
        .join('-');
    const off = localesOf(server).filter(
      ([, tag]) => typeof tag === 'string' && tag !== canonical(tag),
    );
    if (off.length > 0)
      fail(`tags not in canonical casing: ${off.map(([, tag]) => String(tag)).join(', ')}`);
  },
);

export const EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray = condition(
  'EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray',
  (discovery: Discovery) => {
    const methods = discovery.server.code_challenge_methods_supported;
    if (methods === undefined || (Array.isArray(methods) && methods.length === 0)) return;
    arrayContaining('', 'code_challenge_methods_supported', ['S256', 'plain'], 1).check(discovery);
  },
);

/** AbstractValidateJsonBoolean with a required `true`: absent counts as the default, false. */
const requiredTrue = (name: string, member: string) =>
  condition(name, ({ server }: Discovery) => {
    const value = server[member] ?? false;
    if (typeof value !== 'boolean') fail(`${member} is not a boolean`);
    if (!value) fail(`${member} must be true`);
  });

export const CheckDiscEndpointBackchannelLogoutSupported = requiredTrue(
  'CheckDiscEndpointBackchannelLogoutSupported',
  'backchannel_logout_supported',
);
export const CheckDiscEndpointBackchannelLogoutSessionSupported = requiredTrue(
  'CheckDiscEndpointBackchannelLogoutSessionSupported',
  'backchannel_logout_session_supported',
);
export const CheckDiscEndpointFrontchannelLogoutSupported = requiredTrue(
  'CheckDiscEndpointFrontchannelLogoutSupported',
  'frontchannel_logout_supported',
);
export const CheckDiscEndpointFrontchannelLogoutSessionSupported = requiredTrue(
  'CheckDiscEndpointFrontchannelLogoutSessionSupported',
  'frontchannel_logout_session_supported',
);
