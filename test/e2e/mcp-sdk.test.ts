import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpRealm } from '../../examples/mcp-server/src/realm.js';
import { CLIENT_KINDS, type McpAgent, startAgent } from './mcp-agent.js';
import { MCP_SETUPS, type RunningMcp, standaloneConfig } from './mcp-setups.js';

/**
 * The MCP server of examples/mcp-server with the official MCP TypeScript SDK as its client, as an
 * agent on a user's machine uses it: the SDK finds the authorization server from the first 401
 * (RFC 9728, then RFC 8414 path insertion), the user signs in on the login page, the agent
 * redeems the code with PKCE and `resource`, calls tools, refreshes, and steps up to a wider scope
 * when a tool answers 403 `insufficient_scope`. Gatehouse runs embedded in the example (Express),
 * beside it in the Fastify and Hono example apps, and as the standalone server. The agent is, in
 * turn, pre-registered, registered by the SDK itself (RFC 7591), and known by its client ID
 * metadata document, which the test serves on loopback: for it only, the realm allows documents
 * on private networks and Gatehouse trusts the document server's certificate.
 */

describe.each(MCP_SETUPS)('an MCP agent on the official SDK, with $name', (setup) => {
  describe.each(CLIENT_KINDS)('as $name', (kind) => {
    let running: RunningMcp;
    let agent: McpAgent;
    const accessToken = () => decodeJwt(agent.tokens()?.access_token ?? '');

    beforeAll(async () => {
      running = await setup.start();
      agent = await startAgent({ ...running, kind });
    });
    afterAll(async () => {
      await agent?.close();
      await running?.close();
    });

    it('signs in from an ephemeral loopback port, lists the tools and calls one', async () => {
      await agent.connect();
      const { clientInformation, clientMetadataUrl } = agent.identity;
      // The client_id the agent was given, its document's URL, or the one it registered.
      const registers = !clientInformation && !clientMetadataUrl;
      expect(agent.registrations).toHaveLength(registers ? 1 : 0);
      const clientId = clientInformation?.client_id ?? clientMetadataUrl ?? agent.registrations[0];
      expect(agent.clientId()).toBe(clientId);
      const [authorization] = agent.authorizations;
      expect(Object.fromEntries(authorization?.searchParams ?? [])).toMatchObject({
        client_id: clientId,
        scope: 'mcp:tools', // the 401's scope: what every request to this server needs
        resource: running.mcpUrl,
        code_challenge_method: 'S256',
      });
      expect(authorization?.href.startsWith(`${running.issuer}/authorize?`)).toBe(true);

      const { tools } = await agent.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'recent_calls']);
      expect(await agent.callTool('whoami')).toBe(`alice through ${clientId}, with mcp:tools`);
      expect(accessToken()).toMatchObject({
        iss: running.issuer,
        aud: running.mcpUrl,
        sub: 'alice',
        scope: 'mcp:tools',
      });
      expect(agent.tokenRequests).toEqual([
        { grant_type: 'authorization_code', resource: running.mcpUrl, scope: null },
      ]);
    });

    it('refreshes for the same resource when the MCP server refuses its access token', async () => {
      agent.spoilAccessToken();
      expect(await agent.callTool('whoami')).toBe(
        `alice through ${agent.clientId()}, with mcp:tools`,
      );
      expect(agent.tokenRequests.at(-1)).toEqual({
        grant_type: 'refresh_token',
        resource: running.mcpUrl,
        scope: null,
      });
      expect(accessToken()).toMatchObject({ aud: running.mcpUrl, scope: 'mcp:tools' });
      expect(agent.authorizations).toHaveLength(1); // no new sign-in
    });

    it('steps up to mcp:admin when a tool answers insufficient_scope, then calls it', async () => {
      const calls = await agent.callTool('recent_calls', { limit: 5 });
      expect(agent.authorizations).toHaveLength(2);
      expect(agent.authorizations[1]?.searchParams.get('scope')).toBe('mcp:tools mcp:admin');
      expect(agent.authorizations[1]?.searchParams.get('client_id')).toBe(agent.clientId());
      expect(agent.registrations.length).toBeLessThanOrEqual(1); // the same client steps up
      expect(accessToken()).toMatchObject({ aud: running.mcpUrl, scope: 'mcp:tools mcp:admin' });
      expect(calls.split('\n').map((line) => line.split(' ').slice(1).join(' '))).toEqual([
        'alice whoami',
        'alice whoami',
        'alice recent_calls',
      ]);
    });
  });
});

describe('examples/mcp-server/gatehouse.json', () => {
  it('holds the realm the example embeds, for the MCP server on port 3001', () => {
    const { clients, resources, scopes, registration, client_id_metadata_documents } = mcpRealm(
      'http://127.0.0.1:3001/mcp',
    );
    const [realm] = (standaloneConfig() as { realms: Record<string, unknown>[] }).realms;
    expect(realm?.resources).toEqual(resources);
    expect(realm?.clients).toEqual(clients);
    expect(realm?.registration).toEqual(registration);
    expect(realm?.client_id_metadata_documents).toEqual(client_id_metadata_documents);
    expect(realm?.scopes).toEqual(expect.arrayContaining(scopes ?? []));
  });
});
