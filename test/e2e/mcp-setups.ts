import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RealmInput } from '@gatehouse-oidc/core';
import { nodeOutbound } from '@gatehouse-oidc/node-outbound';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import { start as startFastifyApp } from '../../examples/fastify-app/src/app.js';
import { start as startHonoApp } from '../../examples/hono-app/src/app.js';
import { start as startMcpServer } from '../../examples/mcp-server/src/app.js';
import { mcpRealm } from '../../examples/mcp-server/src/realm.js';
import { REALM } from '../../examples/shared/src/index.js';
import { Browser, DEMO, signInAndAllow } from '../examples/drive-code-flow.js';
import { ROOT, withChanges } from '../server/support.js';
import { freePorts } from '../support/ports.js';
import { LOOPBACK_TLS } from '../support/tls.js';
import type { SignIn } from './mcp-agent.js';

/**
 * The MCP server of examples/mcp-server, protected by the resource-server kit, with Gatehouse
 * embedded in the example (Express), beside it in the Fastify and Hono example apps, and as the
 * standalone server with the example's gatehouse.json. For agents known by client ID metadata
 * documents served on loopback, the realm allows documents on private networks and Gatehouse
 * trusts the document server's certificate.
 */

const HOST = '127.0.0.1';

/** What a test adds to the example's realm: more resources and clients, trusted issuers. */
export type RealmExtras = Pick<RealmInput, 'resources' | 'clients' | 'trusted_issuers'>;

export interface RunningMcp {
  mcpUrl: string;
  issuer: string;
  signIn: SignIn;
  close(): Promise<void>;
}

export interface McpSetup {
  name: string;
  start(extras?: RealmExtras): Promise<RunningMcp>;
}

/** Gatehouse's outbound transport, trusting the agent's document server. */
const outbound = () => nodeOutbound({ ca: [LOOPBACK_TLS.cert] });

/** The example's realm, with documents on loopback allowed and the test's extras. */
function realmForTest(mcpUrl: string, extras: RealmExtras) {
  const example = mcpRealm(mcpUrl);
  return {
    ...example,
    client_id_metadata_documents: { enabled: true, private_networks: true },
    resources: [...(example.resources ?? []), ...(extras.resources ?? [])],
    clients: [...(example.clients ?? []), ...(extras.clients ?? [])],
    ...(extras.trusted_issuers && { trusted_issuers: extras.trusted_issuers }),
  };
}

/** The user's browser on the authorization server's pages at `origin`: alice signs in and allows. */
function userAt(origin: string): SignIn {
  const browser = new Browser(origin, origin);
  return (url) => signInAndAllow(browser, url.href, DEMO.user);
}

/** The example as it runs by default: Gatehouse, its pages and the MCP server in one Express app. */
async function embedded(extras: RealmExtras = {}): Promise<RunningMcp> {
  const [port] = await freePorts(1);
  const origin = `http://${HOST}:${port}`;
  const app = await startMcpServer({
    origin,
    port: port as number,
    host: HOST,
    realm: realmForTest(`${origin}/mcp`, extras),
    outbound: outbound(),
  });
  return { mcpUrl: `${origin}/mcp`, issuer: app.issuer, signIn: userAt(origin), close: app.close };
}

/** Gatehouse at `origin`, serving the realm of examples/mcp-server for the MCP server at `mcpUrl`. */
type StartGatehouse = (
  origin: string,
  port: number,
  mcpUrl: string,
  extras: RealmExtras,
) => Promise<{ issuer: string; close(): Promise<void> }>;

/** Fastify or Hono: the example app of that framework, its pages and Gatehouse at /auth. */
const exampleApp =
  (start: typeof startHonoApp): StartGatehouse =>
  async (origin, port, mcpUrl, extras) => {
    const app = await start({
      origin,
      port,
      host: HOST,
      realm: realmForTest(mcpUrl, extras),
      outbound: outbound(),
    });
    return { issuer: `${origin}/auth/oauth/${REALM}`, close: app.close };
  };

/** The standalone server with examples/mcp-server/gatehouse.json, moved to these ports. */
const standaloneServer: StartGatehouse = async (origin, port, mcpUrl, extras) => {
  const [realm] = (standaloneConfig() as { realms: [RealmInput] }).realms;
  const [mcpResource] = realm.resources ?? [];
  const config = parseServerConfig(
    withChanges(standaloneConfig(), {
      base_url: origin,
      'realms.0.resources': [{ ...mcpResource, uri: mcpUrl }, ...(extras.resources ?? [])],
      'realms.0.clients': [...(realm.clients ?? []), ...(extras.clients ?? [])],
      'realms.0.trusted_issuers': extras.trusted_issuers,
      'realms.0.client_id_metadata_documents.private_networks': true,
    }),
  );
  const server = buildServer(config, { outbound: outbound() });
  await server.app.listen({ port, host: HOST });
  return { issuer: `${origin}/oauth/${REALM}`, close: () => server.app.close() };
};

export const standaloneConfig = () =>
  JSON.parse(readFileSync(join(ROOT, 'examples/mcp-server/gatehouse.json'), 'utf8')) as object;

/** The MCP server protected by the kit alone, trusting Gatehouse at another origin. */
const besideGatehouse =
  (startGatehouse: StartGatehouse) =>
  async (extras: RealmExtras = {}): Promise<RunningMcp> => {
    const [gatehousePort, mcpPort] = (await freePorts(2)) as [number, number];
    const gatehouseOrigin = `http://${HOST}:${gatehousePort}`;
    const mcpOrigin = `http://${HOST}:${mcpPort}`;
    const gatehouse = await startGatehouse(
      gatehouseOrigin,
      gatehousePort,
      `${mcpOrigin}/mcp`,
      extras,
    );
    const { issuer } = gatehouse;
    const mcp = await startMcpServer({ origin: mcpOrigin, port: mcpPort, host: HOST, issuer });
    return {
      mcpUrl: `${mcpOrigin}/mcp`,
      issuer,
      signIn: userAt(gatehouseOrigin),
      async close() {
        await mcp.close();
        await gatehouse.close();
      },
    };
  };

export const MCP_SETUPS: readonly McpSetup[] = [
  { name: 'Gatehouse embedded in the example (Express)', start: embedded },
  {
    name: 'Gatehouse in the Fastify example app',
    start: besideGatehouse(exampleApp(startFastifyApp)),
  },
  { name: 'Gatehouse in the Hono example app', start: besideGatehouse(exampleApp(startHonoApp)) },
  { name: 'the standalone server', start: besideGatehouse(standaloneServer) },
];
