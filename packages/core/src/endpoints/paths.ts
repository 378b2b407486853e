/** Endpoint paths below a realm's issuer. Discovery publishes `{issuer}/{path}`. */
export const ENDPOINT_PATHS = {
  discovery: '.well-known/openid-configuration',
  authorizationServerMetadata: '.well-known/oauth-authorization-server',
  jwks: 'jwks',
  token: 'token',
  introspection: 'introspect',
  revocation: 'revoke',
  authorization: 'authorize',
  authorizationResume: 'authorize/resume',
  userinfo: 'userinfo',
  endSession: 'logout',
  checkSession: 'session/check',
  backchannelAuthentication: 'bc-authorize',
  pushedAuthorization: 'par',
  deviceAuthorization: 'device/auth',
  registration: 'register',
  /** RFC 7592's client configuration endpoint: `register/{client_id}`. */
  clientConfiguration: 'register/{client_id}',
} as const;

/** The path of a registered client's configuration endpoint (RFC 7592). */
export const clientConfigurationPath = (clientId: string): string =>
  `${ENDPOINT_PATHS.registration}/${encodeURIComponent(clientId)}`;
