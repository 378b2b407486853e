import { createResourceServer } from '@gatehouse-oidc/resource-server';
import { metadataHandler, requireToken } from '@gatehouse-oidc/resource-server/express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express, { type Express } from 'express';
import { BASE_SCOPE, createTools, TOOL_SCOPES } from './tools.js';

/**
 * The MCP server at `resource` (a URL on this app), for the access tokens of `issuer`: the RFC 9728
 * metadata MCP clients start from, and the Streamable HTTP endpoint, where the kit checks each
 * request's token and the scopes of the tools it calls before the SDK sees it.
 */
export function mountMcp(app: Express, { resource, issuer }: { resource: string; issuer: string }) {
  const kit = createResourceServer({
    resource,
    issuer,
    scopes: [BASE_SCOPE],
    metadata: {
      resource_name: 'Gatehouse example MCP server',
      scopes_supported: [...new Set([BASE_SCOPE, ...Object.values(TOOL_SCOPES).flat()])],
    },
  });
  const tools = createTools();
  const path = new URL(resource).pathname;

  app.get(kit.metadataPath, metadataHandler(kit)); // /.well-known/oauth-protected-resource/mcp
  app.post(
    path,
    // The body first: which tools a message calls decides the scopes its token needs.
    express.json({ limit: '1mb' }),
    (req, res, next) => requireToken(kit, { scopes: scopesCalled(req.body) })(req, res, next),
    async (req, res) => {
      if (!req.accessToken) throw new Error('requireToken lets no request through without one');
      const server = tools(req.accessToken);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined, // stateless: every request stands alone
        enableJsonResponse: true,
      });
      res.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  // Stateless: no stream to open with GET, no session to end with DELETE.
  app.all(path, (_req, res) => {
    res.status(405).set('allow', 'POST').end();
  });
}

interface JsonRpcMessage {
  method?: unknown;
  params?: { name?: unknown };
}

/** The scopes the tools called by a JSON-RPC message, or a batch of them, need. */
function scopesCalled(body: JsonRpcMessage | JsonRpcMessage[] | undefined): string[] {
  return [body ?? []]
    .flat()
    .flatMap((message) =>
      message?.method === 'tools/call' ? (TOOL_SCOPES[String(message.params?.name)] ?? []) : [],
    );
}
