import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { freePort } from '../support/ports.js';
import {
  type CurlCommand,
  curlCommands,
  fencedBlocks,
  importedPackages,
  installedPackages,
} from './markdown.js';

/** The "Embedding" section of a page: its install line, the app, and the commands that try it. */
function embedding(page: string) {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const section = /^## Embedding\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const [install, app, tryIt] = fencedBlocks(section);
  if (install?.lang !== 'sh' || app?.lang !== 'ts' || tryIt?.lang !== 'sh') {
    throw new Error(`${page} lost its Embedding section: install line, app, curl commands`);
  }
  const [discovery, token] = curlCommands(tryIt.body);
  if (!discovery || !token) throw new Error(`${page}: Embedding lost its two curl commands`);
  return { section, install: install.body, app: app.body, discovery, token };
}

/** The page's commands name port 3000; the test's app listens where it can. */
const onPort = (url: string, port: number) => url.replace(/:3000\//, `:${port}/`);

/** The environment of a shell that never set the app's secrets: it takes its dev defaults. */
function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.endsWith('_SECRET')));
}

/**
 * A newcomer's first run: the page's install line covers the app, the app runs as pasted into a
 * fresh directory, and the page's curl commands get discovery and a client_credentials token.
 */
describe.each(['README.md', 'docs/getting-started.md'])('%s, Embedding', (page) => {
  const { section, install, app, discovery, token } = embedding(page);
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-embedding-'));
  let port: number;
  let child: ChildProcess;
  let stderr = '';

  beforeAll(async () => {
    port = await freePort();
    // The reader's app directory: its dependencies from the workspace's node_modules, the
    // Gatehouse packages from their sources (test/tsconfig.json's paths).
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'app.mts'), app);
    child = spawn(process.execPath, ['--import', 'tsx', 'app.mts'], {
      cwd: dir,
      env: {
        ...withoutSecrets(process.env),
        PORT: String(port),
        TSX_TSCONFIG_PATH: join(ROOT, 'test/tsconfig.json'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    await answering(onPort(discovery.url, port));
  }, 30_000);

  afterAll(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Polls until the app answers, failing with its stderr if it stops first. */
  async function answering(url: string): Promise<void> {
    for (let tries = 0; tries < 200; tries += 1) {
      if (child.exitCode !== null) throw new Error(`${page}: the app stopped:\n${stderr}`);
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${page}: the app never answered ${url}:\n${stderr}`);
  }

  it('installs every package its app imports, and says how to run TypeScript', () => {
    expect(importedPackages(app)).toContain('@gatehouse-oidc/core');
    expect(installedPackages(install)).toEqual(expect.arrayContaining(importedPackages(app)));
    expect(section).toContain('npx tsx app.mts');
    expect(section).toContain('"type": "module"');
  });

  it('serves the discovery document of the issuer it was given, where it listens', async () => {
    const response = await fetch(onPort(discovery.url, port));
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(issuerOf(discovery, port));
    expect(metadata.token_endpoint).toBe(onPort(token.url, port));
  });

  it('issues a client_credentials token to the curl command as printed', async () => {
    expect(token.form.grant_type).toBe('client_credentials');
    const response = await fetch(onPort(token.url, port), {
      method: 'POST',
      body: new URLSearchParams(token.form),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token_type: string; access_token: string };
    expect(body.token_type).toBe('Bearer');
    const issuer = issuerOf(discovery, port);
    const { payload } = await jwtVerify(
      body.access_token,
      createRemoteJWKSet(new URL(`${issuer}/jwks`)),
      { issuer, audience: token.form.resource, typ: 'at+jwt' },
    );
    expect(payload.client_id).toBe(token.form.client_id);
  });
});

function issuerOf(discovery: CurlCommand, port: number): string {
  return onPort(discovery.url, port).replace('/.well-known/openid-configuration', '');
}
