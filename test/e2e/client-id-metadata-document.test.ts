import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { clientKeyPair, TEST_ACCOUNTS, testRealm } from '../support/fixtures.js';
import { loopbackListener } from '../support/loopback-listener.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { loopbackCodeRequest } from './loopback-code-request.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * An agent known to the provider only by the URL of its Client ID Metadata Document, as MCP
 * clients sign in: openid-client uses that URL as its client_id with no registration, the
 * provider fetches the document (from the test's fetch: the realm allows private networks, as a
 * bare fetch cannot check addresses), always asks consent, and the agent redeems its code from
 * an ephemeral loopback port with PKCE, then refreshes.
 */

const REALM = 'test';
const AGENT = 'https://agent.e2e.test/oauth/client-metadata.json';
const [harness] = HARNESSES;

const DOCUMENT = {
  client_id: AGENT,
  client_name: 'E2E Agent',
  redirect_uris: ['http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
  scope: 'openid profile',
};

describe(`an agent with a client ID metadata document, through ${harness?.name}`, () => {
  let gatehouse: RunningGatehouse;
  const fetched: string[] = [];
  beforeAll(async () => {
    if (!harness) throw new Error('no harness');
    const realm = testRealm(await clientKeyPair(), {
      client_id_metadata_documents: { enabled: true, private_networks: true },
    });
    gatehouse = await startGatehouse(harness, [realm], {
      accounts: TEST_ACCOUNTS,
      interactionUrl: hostInteractionUrl,
      fetch: async (input) => {
        fetched.push(String(input));
        return String(input) === AGENT
          ? Response.json(DOCUMENT)
          : new Response(null, { status: 404 });
      },
    });
  });
  afterAll(() => gatehouse?.close());

  it('signs in with its URL as client_id, from an ephemeral loopback port, and refreshes', async () => {
    const issuer = gatehouse.issuer(REALM);
    const config = await oidc.discovery(new URL(issuer), AGENT, undefined, oidc.None(), {
      algorithm: 'oauth2',
      [oidc.customFetch]: gatehouse.fetch,
    });
    expect(config.serverMetadata()).toMatchObject({ client_id_metadata_document_supported: true });

    const listener = await loopbackListener();
    try {
      const { url, redeem } = await loopbackCodeRequest(config, listener.port, 'openid profile');
      const agent = userAgent(gatehouse, signInAs('alice'));
      const sentTo = await agent.navigate(url);
      expect(agent.interactions.map((each) => each.prompt)).toEqual(['login', 'consent']);
      expect(agent.interactions[1]?.client).toEqual({
        id: AGENT,
        name: 'E2E Agent',
        metadataDocument: { redirectHost: '127.0.0.1', loopback: true },
      });
      await fetch(sentTo);
      const callback = await listener.received;

      const tokens = await redeem(callback);
      expect(tokens.claims()).toMatchObject({ iss: issuer, sub: 'alice', aud: AGENT });
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
      expect(refreshed.access_token).toEqual(expect.any(String));
      expect(fetched).toEqual([AGENT]);
    } finally {
      listener.server.close();
    }
  });
});
