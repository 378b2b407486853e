import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { clientKeyPair, TEST_ACCOUNTS, testRealm } from '../support/fixtures.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * openid-client registers itself (RFC 7591) with the realm's initial access token, signs alice
 * in with the client it was given, refreshes, and reads its registration back (RFC 7592).
 */

const REALM = 'test';
const INITIAL_TOKEN = 'initial-access-token-for-the-e2e-test-0123456';
const REDIRECT_URI = 'https://rp.e2e.test/callback';
const [harness] = HARNESSES;

describe(`a client that registers itself with openid-client, through ${harness?.name}`, () => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    if (!harness) throw new Error('no harness');
    const realm = testRealm(await clientKeyPair(), {
      registration: { initial_access_token: INITIAL_TOKEN },
    });
    gatehouse = await startGatehouse(harness, [realm], {
      accounts: TEST_ACCOUNTS,
      interactionUrl: hostInteractionUrl,
    });
  });
  afterAll(() => gatehouse?.close());

  it('registers, runs the code flow with PKCE, refreshes and reads its registration', async () => {
    const issuer = gatehouse.issuer(REALM);
    const config = await oidc.dynamicClientRegistration(
      new URL(issuer),
      {
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'openid profile',
        client_name: 'E2E registered client',
        software_id: 'ignored-by-the-provider',
      },
      undefined,
      { initialAccessToken: INITIAL_TOKEN, [oidc.customFetch]: gatehouse.fetch },
    );
    const registered = config.clientMetadata();
    expect(registered).toMatchObject({
      client_secret_expires_at: 0,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(registered).not.toHaveProperty('software_id');

    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      nonce: 'e2e-nonce',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const agent = userAgent(gatehouse, signInAs('alice'));
    const callback = await agent.navigate(url);
    expect(agent.interactions.map((each) => each.prompt)).toEqual(['login', 'consent']);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedNonce: 'e2e-nonce',
    });
    expect(tokens.claims()).toMatchObject({ iss: issuer, sub: 'alice', aud: registered.client_id });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.access_token).toEqual(expect.any(String));

    const read = await gatehouse.fetch(String(registered.registration_client_uri), {
      headers: { authorization: `Bearer ${registered.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ client_id: registered.client_id });
  });
});
