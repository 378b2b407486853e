import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { MCP_SETUPS, type RunningMcp } from './mcp-setups.js';

/**
 * Enterprise-managed authorization for MCP, end to end: the enterprise's identity provider (a test
 * IdP minting ID-JAGs with jose; MCP SDK 1.x has no cross-app access client) gives the agent an
 * ID-JAG for the MCP server; the agent, a confidential client on openid-client v6, exchanges it at
 * the Gatehouse realm with the jwt-bearer grant; the official MCP SDK client then lists and calls
 * the tools of examples/mcp-server, which the resource-server kit protects, with that token. A
 * token the same realm issued for another resource is refused with the RFC 6750 challenge.
 */

const AGENT_ID = 'enterprise-agent';
const AGENT_SECRET = 'enterprise-agent-secret-0123456789';
/** Another API of the realm, whose tokens the MCP server must not take. */
const REPORTS_API = 'https://reports.example.com/api';

let idp: TestIdp;
let jwksUri: string;
beforeAll(async () => {
  idp = await TestIdp.create();
  jwksUri = await idp.serve();
});
afterAll(() => idp.close());

describe.each(MCP_SETUPS)('an ID-JAG for the example MCP server, with $name', (setup) => {
  let running: RunningMcp;
  let agent: oidc.Configuration;
  beforeAll(async () => {
    running = await setup.start({
      trusted_issuers: [{ issuer: idp.issuer, jwks_uri: jwksUri, profile: 'id-jag' }],
      resources: [{ uri: REPORTS_API, client_id: 'mcp-server', scopes: [] }],
      clients: [
        {
          client_id: AGENT_ID,
          client_secret: AGENT_SECRET,
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: [JWT_BEARER],
          scope: 'mcp:tools',
        },
      ],
    });
    agent = await oidc.discovery(
      new URL(running.issuer),
      AGENT_ID,
      undefined,
      oidc.ClientSecretPost(AGENT_SECRET),
      { execute: [oidc.allowInsecureRequests] },
    );
  });
  afterAll(() => running?.close());

  /** An access token for `resource`, from an ID-JAG the IdP minted for alice and this agent. */
  async function exchange(resource: string) {
    const assertion = await idp.mint({
      sub: 'alice',
      aud: running.issuer,
      client_id: AGENT_ID,
      resource,
      scope: 'mcp:tools',
    });
    return oidc.genericGrantRequest(agent, JWT_BEARER, { assertion });
  }

  /** The official SDK's client presenting `accessToken`, and the MCP server's answers. */
  async function mcpClient(accessToken: string) {
    const answers: Response[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(running.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      fetch: async (url, init) => {
        const answer = await fetch(url, init);
        answers.push(answer);
        return answer;
      },
    });
    const client = new Client({ name: 'enterprise-agent', version: '1.0.0' });
    return { client, transport, answers };
  }

  it('the agent exchanges it with the jwt-bearer grant, lists the tools and calls one', async () => {
    const granted = await exchange(running.mcpUrl);
    expect(granted).toMatchObject({ token_type: 'bearer', scope: 'mcp:tools' });
    expect(decodeJwt(granted.access_token)).toMatchObject({
      iss: running.issuer,
      aud: running.mcpUrl,
      sub: 'alice',
      client_id: AGENT_ID,
      scope: 'mcp:tools',
    });

    const { client, transport } = await mcpClient(granted.access_token);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'recent_calls']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.content).toEqual([
        { type: 'text', text: `alice through ${AGENT_ID}, with mcp:tools` },
      ]);
    } finally {
      await client.close();
    }
  });

  it('the MCP server refuses a token the realm issued for another resource', async () => {
    const granted = await exchange(REPORTS_API);
    expect(decodeJwt(granted.access_token)).toMatchObject({ aud: REPORTS_API, sub: 'alice' });

    const { client, transport, answers } = await mcpClient(granted.access_token);
    await expect(client.connect(transport)).rejects.toThrow();
    const [refusal] = answers;
    expect(refusal?.status).toBe(401);
    const challenge = refusal?.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(
      `resource_metadata="${new URL(running.mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});
