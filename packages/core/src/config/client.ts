import { z } from 'zod';
import { httpsOrLoopbackUrl, httpsUrl, redirectUri, scopeString, webOrigin } from './primitives.js';
import { SIGNING_ALGORITHMS } from './signing-algorithms.js';

export const CLIENT_AUTH_METHODS = [
  'client_secret_post',
  'client_secret_basic',
  'client_secret_jwt',
  'private_key_jwt',
  'none',
] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';
/** RFC 8693: an access token of the realm exchanged for one meant for another resource. */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.1: a JWT from one of the realm's trusted issuers as the authorization grant. */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8628 §3.4: a device without a browser polls with the device_code the user approved elsewhere. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** CIBA Core 1.0 §5: how a client hears that the user answered (push is not supported). */
export const CIBA_DELIVERY_MODES = ['poll', 'ping'] as const;

export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  CIBA_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
  JWT_BEARER_GRANT_TYPE,
  DEVICE_CODE_GRANT_TYPE,
  'implicit',
] as const;

export const RESPONSE_TYPES = [
  'code',
  'id_token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
  'none',
] as const;

/**
 * How an authorization response reaches the client: in the query, in the fragment, or POSTed by
 * an auto-submitting form (OAuth 2.0 Form Post Response Mode).
 */
export const RESPONSE_MODES = ['query', 'fragment', 'form_post'] as const;

export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
export const ASYMMETRIC_ASSERTION_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Members that only a private or symmetric JWK has: a client's registered JWKS is public. */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const CURVE_BYTES = { 'P-256': 32, 'P-384': 48, 'P-521': 66, Ed25519: 32 } as const;
const MIN_RSA_MODULUS_BYTES = 256;

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');
const decodedLength = (value: string) => Math.floor((value.length * 3) / 4);
const jwkCommon = { kid: z.string().optional(), alg: z.string().optional() };

/**
 * Public keys are checked member by member when the configuration loads, so a malformed key is a
 * start-up error with its path rather than a failure on every assertion the client sends.
 */
export const publicJwk = z
  .discriminatedUnion('kty', [
    z.looseObject({
      ...jwkCommon,
      kty: z.literal('EC'),
      crv: z.enum(['P-256', 'P-384', 'P-521']),
      x: base64url,
      y: base64url,
    }),
    z.looseObject({ ...jwkCommon, kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: base64url }),
    z.looseObject({
      ...jwkCommon,
      kty: z.literal('RSA'),
      n: base64url.refine(
        (n) => decodedLength(n) >= MIN_RSA_MODULUS_BYTES,
        'must be a modulus of at least 2048 bits',
      ),
      e: base64url,
    }),
  ])
  .refine(
    (jwk) => PRIVATE_JWK_MEMBERS.every((member) => !(member in jwk)),
    'must be a public key (no private or symmetric members)',
  )
  .refine((jwk) => {
    if (jwk.kty === 'RSA') return true;
    const coordinates = jwk.kty === 'EC' ? [jwk.x, jwk.y] : [jwk.x];
    return coordinates.every((c) => decodedLength(c) === CURVE_BYTES[jwk.crv]);
  }, 'coordinates must have the length of the curve');

export const clientSchema = z.strictObject({
  client_id: z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1 to 128 printable ASCII characters')
    .describe('Identifier assigned by the administrator.'),
  client_secret: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe(
      'Shared secret for the client_secret_* methods (at least 32 characters for client_secret_jwt).',
    ),
  previous_client_secret: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe(
      'The secret client_secret replaced, still accepted until previous_client_secret_expires_at: a rotation without downtime.',
    ),
  previous_client_secret_expires_at: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'When previous_client_secret stops working, in seconds since the epoch; required with it.',
    ),
  client_name: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Shown to users on consent and CIBA pages.'),
  application_type: z
    .enum(['web', 'native'])
    .default('web')
    .describe(
      "`native` for apps on the user's device; only `web` clients may use client_credentials.",
    ),
  token_endpoint_auth_method: z
    .enum(CLIENT_AUTH_METHODS)
    .default('client_secret_basic')
    .describe('The one method this client authenticates with; any other is refused.'),
  token_endpoint_auth_signing_alg: z
    .enum([...HMAC_ALGORITHMS, ...ASYMMETRIC_ASSERTION_ALGORITHMS])
    .optional()
    .describe(
      "Pins the JWS algorithm of client assertions; by default any of the method's family.",
    ),
  jwks: z
    .strictObject({
      keys: z
        .array(publicJwk)
        .min(1)
        .describe('Public JWKs (`kty` RSA, EC or OKP); private or symmetric members are refused.'),
    })
    .optional()
    .describe('Public keys for private_key_jwt and signed request objects.'),
  jwks_uri: httpsOrLoopbackUrl
    .optional()
    .describe('Where to fetch the public keys for private_key_jwt and signed request objects.'),
  redirect_uris: z
    .array(redirectUri)
    .default([])
    .describe(
      "Registered redirect URIs: absolute, no fragment, matched exactly. A `native` client's plain http ones must be loopback URIs (`http://127.0.0.1`, `http://[::1]` or `http://localhost`, a path and query after), and a request's redirect_uri matches them with any port (RFC 8252 §7.3); a web client never gets port freedom.",
    ),
  allowed_origins: z
    .array(webOrigin)
    .optional()
    .describe(
      'Origins whose scripts may call the token, revocation and userinfo endpoints for this client (CORS). Default: the origins of its http(s) redirect_uris.',
    ),
  post_logout_redirect_uris: z
    .array(redirectUri)
    .default([])
    .describe('Where the user may be sent after logout: absolute, no fragment.'),
  backchannel_logout_uri: httpsOrLoopbackUrl
    .optional()
    .describe(
      'Where a logout token is POSTed when a session of this client ends (OpenID Connect Back-Channel Logout 1.0).',
    ),
  backchannel_logout_session_required: z
    .boolean()
    .default(false)
    .describe(
      'Every logout token names the session (`sid`); a notification that concerns no session (a revoked grant without one) is not sent.',
    ),
  frontchannel_logout_uri: httpsOrLoopbackUrl
    .optional()
    .describe(
      'Loaded in an iframe of the logout page when a session of this client ends in the browser (OpenID Connect Front-Channel Logout 1.0).',
    ),
  frontchannel_logout_session_required: z
    .boolean()
    .default(false)
    .describe('The frontchannel_logout_uri is loaded with `iss` and `sid` query parameters.'),
  response_types: z
    .array(z.enum(RESPONSE_TYPES))
    .default(['code'])
    .describe('The response_type values this client may request (whitelist).'),
  response_modes: z
    .array(z.enum(RESPONSE_MODES))
    .default([...RESPONSE_MODES])
    .describe('The response_mode values this client may request (whitelist).'),
  grant_types: z
    .array(z.enum(GRANT_TYPES))
    .default(['authorization_code'])
    .describe(
      'Token endpoint grants this client may use; `implicit` may be listed and is ignored (response_types decide).',
    ),
  backchannel_token_delivery_mode: z
    .enum(CIBA_DELIVERY_MODES)
    .default('poll')
    .describe(
      'How a CIBA client learns the user answered: `poll` (it polls the token endpoint) or `ping` (Gatehouse POSTs the auth_req_id to its backchannel_client_notification_endpoint, then it asks the token endpoint once).',
    ),
  backchannel_client_notification_endpoint: httpsUrl
    .optional()
    .describe(
      'Where a `ping` client is told a CIBA request was answered: https (CIBA Core 1.0 §4); required with `ping`.',
    ),
  scope: scopeString.default('openid').describe('Assigned scopes, space-separated.'),
  default_scope: scopeString.optional().describe('Used when a request omits scope.'),
  require_pkce: z
    .boolean()
    .default(true)
    .describe('Authorization requests must carry an S256 code_challenge.'),
  require_pushed_authorization_requests: z
    .boolean()
    .default(false)
    .describe(
      "This client's authorization requests must be pushed first (RFC 9126); the realm's setting applies too.",
    ),
  id_token_signed_response_alg: z
    .enum(SIGNING_ALGORITHMS)
    .optional()
    .describe(
      "JWS algorithm of this client's ID tokens: RS256 or the realm's `signing_alg` (the default).",
    ),
  claims_in_id_token: z
    .boolean()
    .default(false)
    .describe(
      'ID tokens also carry the claims of the granted scopes (by default those come from userinfo whenever an access token is issued).',
    ),
  dpop_bound_access_tokens: z
    .boolean()
    .default(false)
    .describe(
      'Every token request must carry a DPoP proof, so every access token is bound to a key (RFC 9449 §5.2); without one it is refused with `invalid_dpop_proof`.',
    ),
  skip_consent: z
    .boolean()
    .default(false)
    .describe('Grant the requested scopes without asking the user.'),
  token_exchange: z
    .strictObject({
      resources: z
        .array(z.string())
        .min(1)
        .describe('URIs of the realm resources this client may exchange tokens into.'),
    })
    .optional()
    .describe(
      `What the ${TOKEN_EXCHANGE_GRANT_TYPE} grant may issue for this client; required with that grant (docs/delegation.md).`,
    ),
});

export type ClientInput = z.input<typeof clientSchema>;
export type ClientConfig = z.output<typeof clientSchema>;
