import type { DemoRealmAdditions } from '@gatehouse-oidc/example-shared';

/** The agent every MCP client on a user's machine signs in as (pre-registered). */
export const AGENT_CLIENT_ID = 'mcp-agent';

/**
 * What the MCP server at `resource` adds to the realm: its scopes, itself as a protected resource
 * (tokens for it carry it as `aud`), the agent that may call it, agents that register themselves
 * and agents known by their client ID metadata documents.
 */
export function mcpRealm(resource: string): DemoRealmAdditions {
  return {
    scopes: ['mcp:tools', 'mcp:admin'],
    // Agents that bring their own metadata: their client_id is the https URL of its document.
    client_id_metadata_documents: { enabled: true },
    // Agents that register themselves (RFC 7591), with no initial access token as MCP SDKs send
    // none. They register with the scope of the server's first challenge and ask for more on a
    // step-up: each may use every scope, the user consenting to each.
    registration: { open: true, registered_scope: 'all_offered' },
    resources: [{ uri: resource, client_id: 'mcp-server', scopes: ['mcp:tools', 'mcp:admin'] }],
    clients: [
      // The resource's own client, which it would introspect tokens as. It verifies JWTs instead.
      {
        client_id: 'mcp-server',
        client_secret: 'mcp-server-secret-change-me',
        grant_types: [],
        scope: 'openid',
      },
      // A public client (an agent on the user's machine keeps no secret) whose loopback redirect
      // URI matches any port (RFC 8252 §7.3): the agent listens on whichever port it got.
      {
        client_id: AGENT_CLIENT_ID,
        client_name: 'MCP agent',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'mcp:tools mcp:admin',
      },
    ],
  };
}
