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
} as const;
