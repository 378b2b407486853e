import * as oidc from 'openid-client';
import { InjectBrowser, type Injector } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';

/** A confidential client of a standalone server's realm, as openid-client knows it. */
export interface StandaloneClient {
  clientId: string;
  secret: string;
  redirectUri: string;
}

/**
 * openid-client discovers the realm and signs the user in through the server's login page by
 * code flow with PKCE: its configuration, and the ID token the realm issued (an id_token_hint).
 * The pages are reached through `pages`: a server's Fastify app, or an HTTP injector.
 */
export async function signInWithOpenidClient(
  pages: Injector,
  realmUrl: string,
  client: StandaloneClient,
  user: { username: string; password: string },
): Promise<{ config: oidc.Configuration; idToken: string }> {
  const config = await oidc.discovery(
    new URL(realmUrl),
    client.clientId,
    undefined,
    oidc.ClientSecretPost(client.secret),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: client.redirectUri,
    scope: 'openid profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await signInThroughPages(
    new InjectBrowser(pages, new URL(realmUrl).origin),
    url.href,
    user,
  );
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  return { config, idToken: tokens.id_token ?? '' };
}
