import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { OutboundTransport } from '@gatehouse-oidc/core';
import { createApp as createSignInApp } from '@gatehouse-oidc/example-express';
import { type DemoRealmAdditions, REALM } from '@gatehouse-oidc/example-shared';
import express from 'express';
import { mountMcp } from './mcp-endpoint.js';
import { mcpRealm } from './realm.js';

export interface McpAppOptions {
  /** The public URL of the app: the MCP server is `{origin}/mcp`. */
  origin: string;
  /**
   * The authorization server's issuer when Gatehouse runs elsewhere (the standalone server).
   * Without it, Gatehouse runs in this app: at /auth, with the Express example's login pages.
   */
  issuer?: string;
  /** What the MCP server adds to the realm of the Gatehouse in this app; default `mcpRealm`. */
  realm?: DemoRealmAdditions;
  /** How the Gatehouse in this app sends outbound requests; default Node.js's transport. */
  outbound?: OutboundTransport;
}

/** The MCP server, protected by the resource-server kit, with or without Gatehouse beside it. */
export function createApp({ origin, issuer, realm, outbound }: McpAppOptions) {
  const resource = `${origin}/mcp`;
  if (issuer) {
    const app = express();
    mountMcp(app, { resource, issuer });
    return { app, issuer, close: async () => {} };
  }
  // examples/express-app: Gatehouse at /auth and at the host root (RFC 8414), its own login and
  // consent pages and user table, and the demo realm with the MCP server's additions.
  const { app, provider } = createSignInApp({
    origin,
    realm: realm ?? mcpRealm(resource),
    ...(outbound && { outbound }),
  });
  const embedded = `${origin}/auth/oauth/${REALM}`;
  mountMcp(app, { resource, issuer: embedded });
  return { app, issuer: embedded, close: () => provider.close() };
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: McpAppOptions & { port: number; host: string }) {
  const { app, issuer, close } = createApp(options);
  const server = app.listen(options.port, options.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    issuer,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await close();
    },
  };
}
