import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import { afterAll, describe, expect, it } from 'vitest';
import { Browser, signInAndAllow } from '../examples/drive-code-flow.js';
import { ROOT, withChanges } from '../server/support.js';
import { freePorts } from '../support/ports.js';
import { fencedBlocks } from './markdown.js';
import { type RunningSnippet, startSnippet } from './typescript-snippet.js';

/**
 * docs/mcp.md as a newcomer follows it: the standalone server with the page's config, the page's
 * MCP server and agent as pasted; the user signs in at the URL the agent gives, and the agent
 * prints what the page says. Only the ports are the test's own.
 */

const page = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8');
const [, config, server, agent, printed, selfRegistering] = fencedBlocks(page);

describe('docs/mcp.md', () => {
  const running: { stop(): Promise<unknown> }[] = [];
  afterAll(() => Promise.all(running.map((each) => each.stop())));

  it('signs the agent in and calls the MCP server tool, printing what the page says', async () => {
    expect([config?.lang, server?.lang, agent?.lang]).toEqual(['json', 'ts', 'ts']);
    const [gatehousePort, mcpPort] = (await freePorts(2)) as [number, number];
    const origin = `http://127.0.0.1:${gatehousePort}`;
    const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const env = { ISSUER: `${origin}/oauth/demo`, PORT: `${mcpPort}`, MCP_URL: mcpUrl };

    const settings = JSON.parse(config?.body ?? '') as object;
    const moved = { base_url: origin, 'realms.0.resources.0.uri': mcpUrl };
    const gatehouse = buildServer(parseServerConfig(withChanges(settings, moved)));
    await gatehouse.app.listen({ port: gatehousePort, host: '127.0.0.1' });
    running.push({ stop: () => gatehouse.app.close() });

    const mcp = track(startSnippet('server.mts', server?.body ?? '', env));
    await mcp.waitFor(/^MCP server on /m);
    const tool = track(startSnippet('agent.mts', agent?.body ?? '', env));
    const [, signInUrl] = await tool.waitFor(/^Sign in at (\S+)$/m, 'stderr');
    const sentBack = await signInAndAllow(new Browser(origin, origin), signInUrl ?? '', {
      username: 'alice',
      password: 'alice-demo-password',
    });
    await fetch(sentBack); // the browser arrives at the agent's loopback port
    expect(await tool.exited, tool.output.stderr).toBe(0);
    expect(tool.output.stdout).toBe(printed?.body);

    function track(snippet: RunningSnippet) {
      running.push(snippet);
      return snippet;
    }
  }, 60_000);

  it('adds realm settings for agents that register themselves that the realm rules accept', async () => {
    const { validateRealm } = await import('@gatehouse-oidc/core');
    const { realms } = JSON.parse(config?.body ?? '') as { realms: object[] };
    const additions = JSON.parse(selfRegistering?.body ?? '') as object;
    const realm = { ...realms[0], ...additions } as { users?: unknown };
    delete realm.users; // the standalone server's own member
    expect(() => validateRealm(realm)).not.toThrow();
    expect(validateRealm(realm)).toMatchObject({
      registration: { open: true, registered_scope: 'all_offered' },
      client_id_metadata_documents: { enabled: true },
    });
  });
});
