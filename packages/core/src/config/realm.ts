import { z } from 'zod';
import { cibaSchema } from './ciba.js';
import { clientSchema } from './client.js';
import { positiveSeconds, scopeToken } from './primitives.js';
import { resourceSchema } from './resource.js';

/** A realm's path segment. */
export const REALM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

const DAY = 86_400;

export const realmSchema = z.strictObject({
  name: z
    .string()
    .regex(REALM_NAME, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
    .describe("The realm's path segment: its issuer is `{base_url}/oauth/{name}`."),
  access_token_ttl: positiveSeconds(600, DAY).describe('Seconds an access token is valid.'),
  id_token_ttl: positiveSeconds(3600, DAY).describe('Seconds an ID token is valid.'),
  refresh_token_ttl: positiveSeconds(30 * DAY, 365 * DAY).describe(
    'Seconds a grant can be refreshed, counted from the authorization; rotation does not extend it.',
  ),
  authorization_code_ttl: positiveSeconds(60, 600).describe(
    'Seconds an authorization code may wait to be exchanged.',
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
    .describe('Status of `{active:false}`: 400 as the interface document says, 200 as RFC 7662.'),
  signing_alg: z
    .enum(SIGNING_ALGORITHMS)
    .default('ES256')
    .describe(
      'JWS algorithm of the realm key; changing it makes a new key while the old one stays published.',
    ),
  ciba: cibaSchema
    .optional()
    .describe(
      'Backchannel authentication (CIBA, poll mode); needs `authenticatorPush` in the provider options (docs/ciba.md).',
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
});

export type RealmInput = z.input<typeof realmSchema>;
export type RealmConfig = z.output<typeof realmSchema>;
