import * as oidc from 'openid-client';
import { codeRequest } from './code-request.js';

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
  const request = await codeRequest(config, {
    redirect_uri: `http://127.0.0.1:${port}/callback`,
    scope,
  });
  return {
    url: oidc.buildAuthorizationUrl(config, request.parameters),
    redeem: (callback) => request.redeem(callback),
  };
}
