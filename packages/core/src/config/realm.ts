import { z } from 'zod';
import { cibaSchema } from './ciba.js';
import { ASYMMETRIC_ASSERTION_ALGORITHMS, clientSchema, HMAC_ALGORITHMS } from './client.js';
import { clientMetadataDocumentsSchema } from './client-metadata-documents.js';
import { dpopSchema } from './dpop.js';
import { positiveSeconds, scopeToken } from './primitives.js';
import { registrationSchema } from './registration.js';
import { resourceSchema } from './resource.js';
import { SIGNING_ALGORITHMS } from './signing-algorithms.js';
import { trustedIssuerSchema } from './trusted-issuer.js';

/** A realm's path segment. */
export const REALM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export { SIGNING_ALGORITHMS, type SigningAlgorithm } from './signing-algorithms.js';

const DAY = 86_400;

/**
 * A rotated refresh token stays usable by anyone holding it for the grace period, so it is kept
 * to what retries and concurrent requests need.
 */
const MAX_ROTATION_GRACE = 60;

export const realmSchema = z.strictObject({
  name: z
    .string()
    .regex(REALM_NAME, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
    .describe("The realm's path segment: its issuer is `{base_url}/oauth/{name}`."),
  profile: z
    .enum(['fapi2'])
    .optional()
    .describe(
      'A security profile the realm enforces: `fapi2` is the FAPI 2.0 Security Profile (docs/fapi2.md) — pushed requests, PKCE, DPoP-bound tokens, private_key_jwt, ES256/PS256/EdDSA only; a client that breaks it is refused at load. Absent: none.',
    ),
  access_token_ttl: positiveSeconds(600, DAY).describe('Seconds an access token is valid.'),
  id_token_ttl: positiveSeconds(3600, DAY).describe('Seconds an ID token is valid.'),
  refresh_token_ttl: positiveSeconds(30 * DAY, 365 * DAY).describe(
    'Seconds a grant can be refreshed, counted from the authorization; rotation does not extend it.',
  ),
  refresh_token_rotation_grace: z
    .number()
    .int('must be a whole number of seconds')
    .min(0)
    .max(MAX_ROTATION_GRACE)
    .default(0)
    .describe(
      'Seconds after a refresh token was rotated during which its client may present it again and gets the same new refresh token, for retries and concurrent refreshes (docs/sessions-and-grants.md); 0 (the default) treats any second use as reuse, which revokes the grant.',
    ),
  authorization_code_ttl: positiveSeconds(60, 600).describe(
    'Seconds an authorization code may wait to be exchanged.',
  ),
  device_code_ttl: positiveSeconds(600, 1800).describe(
    'Seconds a device authorization request (RFC 8628) waits for its user to enter the user code and approve it.',
  ),
  device_poll_interval: positiveSeconds(5, 60).describe(
    'Seconds a device must wait between polls of the token endpoint; a faster poll gets slow_down and 5 more seconds.',
  ),
  session_ttl: positiveSeconds(14 * DAY, 365 * DAY).describe(
    'Seconds a browser session (single sign-on) lasts after the user signed in.',
  ),
  access_token_format: z
    .enum(['jwt', 'opaque'])
    .default('jwt')
    .describe('`jwt` (RFC 9068, `typ: at+jwt`) or an opaque random string.'),
  access_token_retention_policy: z
    .enum(['store', 'no-store'])
    .default('store')
    .describe(
      '`store` keeps a record of every access token so it can be revoked; `no-store` writes none.',
    ),
  introspection_inactive_status: z
    .union([z.literal(400), z.literal(200)])
    .default(400)
    .describe(
      'Status of `{active:false}`: 400 as docs/interface.md §7.3 says, 200 as RFC 7662 §2.2.',
    ),
  signing_alg: z
    .enum(SIGNING_ALGORITHMS)
    .default('ES256')
    .describe(
      'JWS algorithm of the realm key; changing it makes a new key while the old one stays published.',
    ),
  key_rotation_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(DAY, `must be at least ${DAY} seconds (one day)`)
    .optional()
    .describe(
      'Seconds between scheduled rotations of the realm’s signing keys, counted from the creation of the current key; every instance sharing the store rotates at most once per period in total (docs/storage-and-keys.md). Absent: keys rotate only on request.',
    ),
  error_codes: z
    .enum(['interface', 'registered'])
    .default('interface')
    .describe(
      'Error codes on the wire: `interface` (the interface document’s own, such as `nonce_required`) or `registered` (the OAuth 2.0 / OpenID Connect registered codes, such as `invalid_request`, for realms that must pass the OpenID certification tests; docs/errors.md).',
    ),
  ciba: cibaSchema
    .optional()
    .describe(
      'Backchannel authentication (CIBA, poll mode); needs `authenticatorPush` in the provider options (docs/ciba.md).',
    ),
  request_object_signing_alg_values_supported: z
    .array(z.enum([...ASYMMETRIC_ASSERTION_ALGORITHMS, ...HMAC_ALGORITHMS]))
    .default([])
    .describe(
      'Signed request objects (RFC 9101) the realm takes, by JWS algorithm: asymmetric ones are verified with the client’s `jwks` or `jwks_uri`, HS256/384/512 with its client_secret; `none` never. Empty (the default): the `request` parameter is answered `request_not_supported`.',
    ),
  require_pushed_authorization_requests: z
    .boolean()
    .default(false)
    .describe(
      'Every authorization request of the realm must be pushed first (RFC 9126): the authorization endpoint refuses any other.',
    ),
  dpop: dpopSchema
    .prefault({})
    .describe(
      'DPoP (RFC 9449): sender-constrained tokens for clients that send a proof (docs/dpop.md).',
    ),
  scopes: z
    .array(scopeToken)
    .default(['openid'])
    .describe('Every scope of the realm; clients and resources may name only these.'),
  resources: z
    .array(resourceSchema)
    .default([])
    .describe('Protected Resources (see Resource below).'),
  clients: z.array(clientSchema).default([]).describe('Registered clients (see Client below).'),
  client_id_metadata_documents: clientMetadataDocumentsSchema
    .optional()
    .describe(
      'Clients that bring their own metadata: a client_id that is the https URL of a Client ID Metadata Document (docs/client-id-metadata-documents.md). Off when absent.',
    ),
  registration: registrationSchema
    .optional()
    .describe(
      'Dynamic client registration (RFC 7591) and the client configuration endpoint (RFC 7592) at `{issuer}/register` (docs/dynamic-client-registration.md). Off when absent.',
    ),
  trusted_issuers: z
    .array(trustedIssuerSchema)
    .default([])
    .describe(
      'Issuers whose JWTs the jwt-bearer grant (RFC 7523) accepts as authorization grants (see TrustedIssuer below; docs/delegation.md).',
    ),
});

export type RealmInput = z.input<typeof realmSchema>;
export type RealmConfig = z.output<typeof realmSchema>;
