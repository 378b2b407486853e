import { SCOPE_CLAIMS } from '../accounts/claims.js';
import { SUPPORTED_CLIENT_AUTH_METHODS } from '../client-auth/methods/registry.js';
import {
  ASYMMETRIC_ASSERTION_ALGORITHMS,
  CIBA_DELIVERY_MODES,
  CIBA_GRANT_TYPE,
  HMAC_ALGORITHMS,
  JWT_BEARER_GRANT_TYPE,
  RESPONSE_MODES,
  RESPONSE_TYPES,
} from '../config/client.js';
import { proofAlgorithms } from '../config/dpop.js';
import { FAPI2_ALGORITHMS, isFapi2 } from '../config/fapi2.js';
import type { EndpointHandler } from '../context.js';
import { GRANT_TYPE_REGISTRY } from '../grant-types/registry.js';
import { withRealmCors } from '../http/cors.js';
import { jsonResponse } from '../http/responses.js';
import type { Realm } from '../realms/realm.js';
import { ENDPOINT_PATHS } from './paths.js';

const ID_TOKEN_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
  'sid',
];
const CLAIMS_SUPPORTED = [...new Set([...ID_TOKEN_CLAIMS, ...[...SCOPE_CLAIMS.values()].flat()])];
const ASSERTION_ALGORITHMS = [...HMAC_ALGORITHMS, ...ASYMMETRIC_ASSERTION_ALGORITHMS];
/** Introspection needs a caller that proves who it is (RFC 7662 §2.1): no `none`. */
const AUTHENTICATING_METHODS = SUPPORTED_CLIENT_AUTH_METHODS.filter((method) => method !== 'none');

/**
 * OpenID Provider Metadata (OIDC Discovery 1.0 §3), which is also the realm's OAuth 2.0
 * Authorization Server Metadata (RFC 8414), for what this realm implements; served at both
 * well-known paths below the issuer, and at the host's root by path insertion (adapter entry).
 * Every URL is built from the configured base URL, never from request headers.
 */
export const discoveryEndpoint: EndpointHandler = async (request, context) =>
  withRealmCors(
    jsonResponse(200, providerMetadata(context.realm), {
      'cache-control': 'public, max-age=300',
      vary: 'Origin',
    }),
    request,
    context.realm,
  );

export function providerMetadata(realm: Realm): Record<string, unknown> {
  const fapi2 = isFapi2(realm.config);
  return {
    issuer: realm.issuer,
    authorization_endpoint: realm.url(ENDPOINT_PATHS.authorization),
    token_endpoint: realm.url(ENDPOINT_PATHS.token),
    userinfo_endpoint: realm.url(ENDPOINT_PATHS.userinfo),
    jwks_uri: realm.url(ENDPOINT_PATHS.jwks),
    introspection_endpoint: realm.url(ENDPOINT_PATHS.introspection),
    revocation_endpoint: realm.url(ENDPOINT_PATHS.revocation),
    end_session_endpoint: realm.url(ENDPOINT_PATHS.endSession),
    check_session_iframe: realm.url(ENDPOINT_PATHS.checkSession),
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    scopes_supported: realm.config.scopes,
    response_types_supported: fapi2 ? ['code'] : RESPONSE_TYPES,
    response_modes_supported: RESPONSE_MODES,
    prompt_values_supported: ['none', 'login', 'consent'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: realm.signingAlgorithms,
    // implicit is no token-endpoint grant, but the browser flows that return tokens directly.
    grant_types_supported: [...GRANT_TYPE_REGISTRY.keys(), ...(fapi2 ? [] : ['implicit'])].filter(
      (grant) =>
        grant === CIBA_GRANT_TYPE
          ? realm.config.ciba !== undefined
          : grant !== JWT_BEARER_GRANT_TYPE || realm.trustedIssuers.size > 0,
    ),
    ...clientAuthenticationMetadata(fapi2),
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    dpop_signing_alg_values_supported: proofAlgorithms(realm.config),
    request_parameter_supported:
      realm.config.request_object_signing_alg_values_supported.length > 0,
    ...(realm.config.request_object_signing_alg_values_supported.length > 0
      ? {
          request_object_signing_alg_values_supported:
            realm.config.request_object_signing_alg_values_supported,
        }
      : {}),
    // Only references to pushed requests (RFC 9126 §4), never a URL to fetch.
    request_uri_parameter_supported: true,
    pushed_authorization_request_endpoint: realm.url(ENDPOINT_PATHS.pushedAuthorization),
    device_authorization_endpoint: realm.url(ENDPOINT_PATHS.deviceAuthorization),
    require_pushed_authorization_requests:
      fapi2 || realm.config.require_pushed_authorization_requests,
    require_request_uri_registration: false,
    ...(realm.config.client_id_metadata_documents?.enabled
      ? { client_id_metadata_document_supported: true }
      : {}),
    ...(realm.config.registration
      ? { registration_endpoint: realm.url(ENDPOINT_PATHS.registration) }
      : {}),
    ...(realm.config.ciba ? cibaMetadata(realm) : {}),
    ...([...realm.trustedIssuers.values()].some((trusted) => trusted.profile === 'id-jag')
      ? { authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] }
      : {}),
  };
}

/** How clients authenticate at the token, introspection and revocation endpoints. */
function clientAuthenticationMetadata(fapi2: boolean): Record<string, readonly string[]> {
  // FAPI 2.0 SP §5.3.2.1-6 and §5.4: private_key_jwt, with its three algorithms.
  const methods = fapi2 ? ['private_key_jwt'] : SUPPORTED_CLIENT_AUTH_METHODS;
  const algorithms = fapi2 ? FAPI2_ALGORITHMS : ASSERTION_ALGORITHMS;
  return {
    token_endpoint_auth_methods_supported: methods,
    token_endpoint_auth_signing_alg_values_supported: algorithms,
    introspection_endpoint_auth_methods_supported: fapi2 ? methods : AUTHENTICATING_METHODS,
    introspection_endpoint_auth_signing_alg_values_supported: algorithms,
    revocation_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_signing_alg_values_supported: algorithms,
  };
}

/** MCP Enterprise-Managed Authorization: the realm takes ID-JAGs at the jwt-bearer grant. */
const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-type:id-jag';

/** CIBA Core 1.0 §4, poll mode only. */
function cibaMetadata(realm: Realm): Record<string, unknown> {
  return {
    backchannel_authentication_endpoint: realm.url(ENDPOINT_PATHS.backchannelAuthentication),
    backchannel_token_delivery_modes_supported: [...CIBA_DELIVERY_MODES],
    backchannel_user_code_parameter_supported: false,
  };
}
