import { z } from 'zod';
import { CLIENT_AUTH_METHODS, GRANT_TYPES } from './client.js';
import { scopeToken } from './primitives.js';

const DAY = 86_400;

/** URI schemes, lower case, as RFC 3986 §3.1 spells them. */
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

/**
 * Dynamic client registration (RFC 7591) and the client configuration endpoint (RFC 7592): who
 * may register a client in the realm and what it may ask for (docs/dynamic-client-registration.md).
 */
export const registrationSchema = z.strictObject({
  initial_access_token: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'The bearer token a registration request must carry (RFC 7591 §3); compared in constant time. Either this or `open`.',
    ),
  open: z
    .boolean()
    .default(false)
    .describe('Anyone may register a client, without an initial access token.'),
  max_clients: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(1000)
    .describe(
      'Registered clients the realm holds at most; a registration beyond it answers 429. Counted in the store, shared by every instance.',
    ),
  grant_types: z
    .array(z.enum(GRANT_TYPES))
    .min(1)
    .default(['authorization_code', 'refresh_token'])
    .describe('The grant types a registered client may have.'),
  token_endpoint_auth_methods: z
    .array(z.enum(CLIENT_AUTH_METHODS).exclude(['client_secret_jwt']))
    .min(1)
    .default(['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'])
    .describe(
      'The ways a registered client may authenticate. Not `client_secret_jwt`: a registered client’s secret is kept only as a digest, and that method needs the secret itself.',
    ),
  scopes: z
    .array(scopeToken)
    .min(1)
    .optional()
    .describe(
      'The scopes a registered client may have, among the realm’s; it gets all of them when it names none. Default: the realm’s scopes.',
    ),
  registered_scope: z
    .enum(['as_requested', 'all_offered'])
    .default('as_requested')
    .describe(
      'The scopes a registered client may ask for later: those its registration named (`as_requested`), or every scope offered to registered clients (`all_offered`), which its registration answer then lists (RFC 7591 §3.2.1). `all_offered` suits agents that register with the scope they need first and ask for more on a step-up, as MCP SDK agents do; the user still consents to each scope.',
    ),
  redirect_uri_schemes: z
    .array(z.string().regex(SCHEME, 'must be a URI scheme in lower case'))
    .min(1)
    .default(['https', 'http'])
    .describe(
      'The schemes a registered redirect URI may have. Plain http is only ever to a loopback address (any port for a `native` client); add a private-use scheme (`com.example.app`) for native apps that use one.',
    ),
  private_networks: z
    .boolean()
    .default(false)
    .describe(
      'A registered client’s jwks_uri may be on loopback, private, link-local and other special-use addresses (checked after DNS resolution). Off, it is refused.',
    ),
  unused_client_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(DAY, `must be at least ${DAY} seconds (one day)`)
    .default(30 * DAY)
    .describe(
      'A registered client that got no token for this long is removed (its last use is recorded at most once a day).',
    ),
});

export type RegistrationConfig = z.output<typeof registrationSchema>;
