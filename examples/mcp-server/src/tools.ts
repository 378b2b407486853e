import type { AccessToken } from '@gatehouse-oidc/resource-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** Every request to the MCP server needs this scope; a tool may need more. */
export const BASE_SCOPE = 'mcp:tools';

/** What each tool needs beyond BASE_SCOPE: the answer to a call without it is 403 `insufficient_scope`. */
export const TOOL_SCOPES: Readonly<Record<string, readonly string[]>> = {
  whoami: [],
  recent_calls: ['mcp:admin'],
};

interface Call {
  tool: string;
  sub: string;
  at: string;
}

/**
 * The tools, as the official SDK serves them. Each call is answered for the token's user, which
 * the HTTP side verified before the SDK saw the request (see mcp-endpoint.ts).
 */
export function createTools() {
  const calls: Call[] = [];
  const record = (tool: string, token: AccessToken) => {
    calls.push({ tool, sub: String(token.claims.sub), at: new Date().toISOString() });
    if (calls.length > 100) calls.shift();
  };

  /** A server for one request: the SDK's stateless mode, so any instance can answer any call. */
  return (token: AccessToken) => {
    const server = new McpServer({ name: 'gatehouse-example', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Who the access token speaks for: user, client and scopes' },
      async () => {
        record('whoami', token);
        const { sub, client_id } = token.claims;
        const text = `${sub} through ${client_id}, with ${token.scopes.join(' ')}`;
        return { content: [{ type: 'text', text }] };
      },
    );
    server.registerTool(
      'recent_calls',
      {
        description: 'The latest tool calls on this server and who made them (mcp:admin)',
        inputSchema: { limit: z.number().int().min(1).max(100).default(10) },
      },
      async ({ limit }) => {
        record('recent_calls', token);
        const lines = calls.slice(-limit).map(({ at, sub, tool }) => `${at} ${sub} ${tool}`);
        return { content: [{ type: 'text', text: lines.join('\n') }] };
      },
    );
    return server;
  };
}
