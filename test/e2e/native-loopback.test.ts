import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { clientKeyPair, TEST_ACCOUNTS, testRealm } from '../support/fixtures.js';
import { loopbackListener } from '../support/loopback-listener.js';
import { PUBLIC_ORIGIN, type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { loopbackCodeRequest } from './loopback-code-request.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * An agent or command-line tool signing in as it does in the wild: openid-client finds the
 * realm by RFC 8414 path insertion at the host's root (`algorithm: 'oauth2'`), a native public
 * client registered with a port-less loopback redirect URI listens on a port the system picked,
 * and openid-client checks `iss` in the authorization response (RFC 9207) before redeeming the
 * code with PKCE.
 */

const REALM = 'test';
const CLIENT_ID = 'agent-cli';

describe.each(HARNESSES)('a native agent signing in through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    const base = testRealm(await clientKeyPair());
    const agent = {
      client_id: CLIENT_ID,
      application_type: 'native' as const,
      token_endpoint_auth_method: 'none' as const,
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code' as const, 'refresh_token' as const],
      scope: 'openid profile',
    };
    gatehouse = await startGatehouse(
      harness,
      [{ ...base, clients: [...(base.clients ?? []), agent] }],
      { accounts: TEST_ACCOUNTS, interactionUrl: hostInteractionUrl },
    );
  });
  afterAll(() => gatehouse?.close());

  it('discovers by path insertion and runs the code flow from an ephemeral loopback port', async () => {
    const issuer = gatehouse.issuer(REALM);
    const asked: string[] = [];
    const config = await oidc.discovery(new URL(issuer), CLIENT_ID, undefined, oidc.None(), {
      algorithm: 'oauth2',
      [oidc.customFetch]: (url: string, init: RequestInit) => {
        asked.push(url);
        return gatehouse.fetch(url, init);
      },
    });
    expect(asked[0]).toBe(
      `${PUBLIC_ORIGIN}/.well-known/oauth-authorization-server${new URL(issuer).pathname}`,
    );
    expect(config.serverMetadata()).toMatchObject({
      issuer,
      authorization_response_iss_parameter_supported: true,
    });

    const listener = await loopbackListener();
    try {
      const { url, redeem } = await loopbackCodeRequest(config, listener.port, 'openid profile');
      const sentTo = await userAgent(gatehouse, signInAs('alice')).navigate(url);
      expect(sentTo.origin).toBe(`http://127.0.0.1:${listener.port}`);
      // The browser arrives at the tool's listener, which hands the URL to openid-client.
      await fetch(sentTo);
      const callback = await listener.received;
      expect(callback.searchParams.get('iss')).toBe(issuer);

      const tokens = await redeem(callback);
      expect(tokens.claims()).toMatchObject({ iss: issuer, sub: 'alice', aud: CLIENT_ID });
      expect(tokens.refresh_token).toEqual(expect.any(String));
    } finally {
      listener.server.close();
    }
  });

  it('is refused a redirect to another loopback path, shown at the provider', async () => {
    const config = await oidc.discovery(
      new URL(gatehouse.issuer(REALM)),
      CLIENT_ID,
      undefined,
      oidc.None(),
      { algorithm: 'oauth2', [oidc.customFetch]: gatehouse.fetch },
    );
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:51234/elsewhere',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const answer = await gatehouse.fetch(url.href, { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain('invalid_redirect_uri');
  });
});
