import * as oidc from 'openid-client';

/**
 * An authorization request of a native app or agent as openid-client makes it: PKCE (S256) and
 * state, redirected to its loopback listener on `port`; `redeem` exchanges the code the listener
 * received, checking state and `iss`.
 */
export async function loopbackCodeRequest(
  config: oidc.Configuration,
  port: number,
  scope: string,
): Promise<{ url: URL; redeem(callback: URL): ReturnType<typeof oidc.authorizationCodeGrant> }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `http://127.0.0.1:${port}/callback`,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return {
    url,
    redeem: (callback) =>
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      }),
  };
}
