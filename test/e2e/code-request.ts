import * as oidc from 'openid-client';

/** What a code request sends besides PKCE and state. */
export interface CodeRequestParameters {
  redirect_uri: string;
  scope: string;
  [name: string]: string;
}

/**
 * An authorization code request as openid-client makes it: PKCE (S256) and state added to
 * `parameters`, which the caller sends as it likes (in the URL, signed, pushed); `redeem`
 * exchanges the code the client is sent back with, checking state and `iss`.
 */
export async function codeRequest(
  config: oidc.Configuration,
  parameters: CodeRequestParameters,
): Promise<{
  parameters: Record<string, string>;
  redeem(
    callback: URL,
    options?: oidc.AuthorizationCodeGrantOptions,
  ): ReturnType<typeof oidc.authorizationCodeGrant>;
}> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  return {
    parameters: {
      ...parameters,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    },
    redeem: (callback, options) =>
      oidc.authorizationCodeGrant(
        config,
        callback,
        { pkceCodeVerifier: verifier, expectedState: state },
        undefined,
        options,
      ),
  };
}
