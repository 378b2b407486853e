import type { EndpointHandler } from './context.js';
import { authorizationEndpoint } from './endpoints/authorization.js';
import { authorizationResumeEndpoint } from './endpoints/authorization-resume.js';
import { backchannelAuthenticationEndpoint } from './endpoints/backchannel-authentication.js';
import { checkSessionEndpoint } from './endpoints/check-session.js';
import { clientConfigurationEndpoint } from './endpoints/client-configuration.js';
import { deviceAuthorizationEndpoint } from './endpoints/device-authorization.js';
import { discoveryEndpoint } from './endpoints/discovery.js';
import { endSessionEndpoint } from './endpoints/end-session.js';
import { introspectionEndpoint } from './endpoints/introspection.js';
import { jwksEndpoint } from './endpoints/jwks.js';
import { ENDPOINT_PATHS } from './endpoints/paths.js';
import { pushedAuthorizationEndpoint } from './endpoints/pushed-authorization.js';
import { registrationEndpoint } from './endpoints/registration.js';
import { revocationEndpoint } from './endpoints/revocation.js';
import { tokenEndpoint } from './endpoints/token.js';
import { userinfoEndpoint } from './endpoints/userinfo.js';
import type { ErrorDialect } from './errors/codes.js';

export interface Route {
  readonly methods: readonly string[];
  readonly handler: EndpointHandler;
  /**
   * Its answers are readable from the browser origins of the realm's clients (http/cors.ts), or
   * from any origin; the provider answers its OPTIONS preflights.
   */
  readonly cors?: true | 'any-origin';
  /** Its errors are spelled in this dialect whatever the realm's `error_codes`. */
  readonly errorDialect?: ErrorDialect;
}

/**
 * RFC 7591 and 7592 define their own codes (`invalid_redirect_uri`, `invalid_client_metadata`),
 * which no realm's dialect renames.
 */
const REGISTRATION_ROUTE = {
  cors: 'any-origin',
  errorDialect: 'interface',
} as const;

const GET = ['GET', 'HEAD'] as const;
const POST = ['POST'] as const;
const METADATA: Route = { methods: [...GET, 'OPTIONS'], handler: discoveryEndpoint, cors: true };

/** Endpoints by their path below `/oauth/{realm}/`. */
export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  [ENDPOINT_PATHS.discovery, METADATA],
  // RFC 8414 §3: the same document where OAuth clients look for it.
  [ENDPOINT_PATHS.authorizationServerMetadata, METADATA],
  [ENDPOINT_PATHS.jwks, { methods: [...GET, 'OPTIONS'], handler: jwksEndpoint, cors: true }],
  [ENDPOINT_PATHS.token, { methods: [...POST, 'OPTIONS'], handler: tokenEndpoint, cors: true }],
  // Introspection is for resource servers, never for a script in a browser: no CORS.
  [ENDPOINT_PATHS.introspection, { methods: POST, handler: introspectionEndpoint }],
  [
    ENDPOINT_PATHS.revocation,
    { methods: [...POST, 'OPTIONS'], handler: revocationEndpoint, cors: true },
  ],
  // No HEAD on the browser endpoints: a link checker's HEAD must not start, resume or end a sign-in.
  // No CORS either: the browser navigates there, no script reads the answer.
  [ENDPOINT_PATHS.authorization, { methods: ['GET', 'POST'], handler: authorizationEndpoint }],
  [ENDPOINT_PATHS.authorizationResume, { methods: ['GET'], handler: authorizationResumeEndpoint }],
  // RFC 9126: a confidential client's backend pushes there; no script in a browser: no CORS.
  [ENDPOINT_PATHS.pushedAuthorization, { methods: POST, handler: pushedAuthorizationEndpoint }],
  [
    ENDPOINT_PATHS.userinfo,
    { methods: [...GET, 'POST', 'OPTIONS'], handler: userinfoEndpoint, cors: true },
  ],
  [ENDPOINT_PATHS.endSession, { methods: ['GET', 'POST'], handler: endSessionEndpoint }],
  [ENDPOINT_PATHS.checkSession, { methods: GET, handler: checkSessionEndpoint }],
  [
    ENDPOINT_PATHS.backchannelAuthentication,
    { methods: POST, handler: backchannelAuthenticationEndpoint },
  ],
  // RFC 8628: a device or a command-line tool asks there, no script in a browser: no CORS.
  [ENDPOINT_PATHS.deviceAuthorization, { methods: POST, handler: deviceAuthorizationEndpoint }],
  [
    ENDPOINT_PATHS.registration,
    { methods: [...POST, 'OPTIONS'], handler: registrationEndpoint, ...REGISTRATION_ROUTE },
  ],
  [
    ENDPOINT_PATHS.clientConfiguration,
    {
      methods: ['GET', 'PUT', 'DELETE', 'OPTIONS'],
      handler: clientConfigurationEndpoint,
      ...REGISTRATION_ROUTE,
    },
  ],
]);

const CLIENT_CONFIGURATION_PATH = /^register\/[^/]+$/;

/**
 * The route of an endpoint path below the realm, and its name: the path itself, or
 * `register/{client_id}` for a client configuration endpoint, so telemetry never names a client.
 */
export function findRoute(endpoint: string): { route: Route; name: string } | undefined {
  const name = CLIENT_CONFIGURATION_PATH.test(endpoint)
    ? ENDPOINT_PATHS.clientConfiguration
    : endpoint;
  const route = ROUTES.get(name);
  return route && { route, name };
}

const REALM_PATH = /^\/oauth\/([^/]+)\/(.+)$/;

/** Splits `/oauth/{realm}/{endpoint}` into its parts, or undefined for any other path. */
export function matchPath(path: string): { realmName: string; endpoint: string } | undefined {
  const match = REALM_PATH.exec(path);
  if (!match?.[1] || !match[2]) return undefined;
  return { realmName: match[1], endpoint: match[2] };
}
