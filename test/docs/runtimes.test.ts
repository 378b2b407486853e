import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { form } from '../support/fixtures.js';
import {
  availableRuntimes,
  bundle,
  RUNTIMES,
  type Runtime,
  type RuntimeServer,
  serve,
} from '../support/runtimes.js';
import { curlCommands, fencedBlocks } from './markdown.js';

const DOC = readFileSync(join(ROOT, 'docs/runtimes.md'), 'utf8');

/** Each section of the page, the runtime it runs on, and the port its tool listens on by default. */
const SECTIONS = [
  { title: 'Cloudflare Workers', runtime: 'workerd', port: 8787 },
  { title: 'Bun', runtime: 'bun', port: 3000 },
  { title: 'Deno', runtime: 'deno', port: 8000 },
] as const;

interface DocumentedApp {
  install: string;
  /** Files by the name their block's first line gives (`// src/index.ts`, `# wrangler.toml`). */
  files: Map<string, string>;
  /** What "Run it with `…`" says. */
  run: string;
}

function documentedApp(title: string): DocumentedApp {
  const section = DOC.split(/^## /m).find((part) => part.startsWith(`${title}\n`));
  if (!section) throw new Error(`docs/runtimes.md lost its ${title} section`);
  const blocks = fencedBlocks(section);
  const files = new Map<string, string>();
  for (const { body } of blocks.slice(1)) {
    const name = /^(?:\/\/|#) (\S+)\n/.exec(body)?.[1];
    if (name) files.set(name, body);
  }
  return {
    install: blocks[0]?.lang === 'sh' ? blocks[0].body.trim() : '',
    files,
    run: /Run it with `([^`]+)`/.exec(section)?.[1] ?? '',
  };
}

/** The fields of the page's curl command: the client its apps register. */
const curl = fencedBlocks(DOC)
  .filter((block) => block.lang === 'sh')
  .flatMap((block) => curlCommands(block.body))[0];

/**
 * A project directory as the install line leaves it: the workspace's packages (as built) and Hono
 * in its node_modules, for Bun's and Deno's own resolution and for the Worker's bundle.
 */
function project(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@gatehouse-oidc'), { recursive: true });
  for (const name of ['core', 'hono']) {
    symlinkSync(join(ROOT, 'packages', name), join(modules, '@gatehouse-oidc', name));
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules/hono')), join(modules, 'hono'));
  const dependencies = { '@gatehouse-oidc/core': '*', '@gatehouse-oidc/hono': '*', hono: '*' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', dependencies }));
}

/** Starts the section's app the way its run command does; the Worker bundled as wrangler would. */
async function start(runtime: Runtime, app: DocumentedApp, dir: string): Promise<RuntimeServer> {
  for (const [name, text] of app.files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  if (runtime.name !== 'workerd') {
    const file = app.run.split(' ').at(-1) ?? '';
    expect(app.run).toBe(`${runtime.name} ${runtime.name === 'bun' ? 'run' : 'serve'} ${file}`);
    return serve(runtime, join(dir, file));
  }
  expect(app.run).toBe('npx wrangler dev');
  const toml = app.files.get('wrangler.toml') ?? '';
  const main = /^main = "(.+)"$/m.exec(toml)?.[1] ?? '';
  const compatibilityDate = /^compatibility_date = "(.+)"$/m.exec(toml)?.[1] ?? '';
  return serve(runtime, await bundle(join(dir, main), dir, 'installed'), compatibilityDate);
}

describe('docs/runtimes.md', () => {
  const available = availableRuntimes('docs/runtimes.md');
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-runtimes-doc-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeAll(async () => {
    // The apps import the packages as built, like an installed copy: build what changed.
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: ROOT });
  }, 120_000);

  it('names the client its apps register in its curl command', () => {
    expect(curl?.form).toEqual({
      grant_type: 'client_credentials',
      client_id: 'demo-service',
      client_secret: 'demo-service-secret-change-me',
    });
  });

  describe.each(SECTIONS)('$title', ({ title, runtime: name, port }) => {
    const runtime = RUNTIMES.find((candidate) => candidate.name === name);
    if (!runtime) throw new Error(`no runtime ${name}`);
    const app = documentedApp(title);
    const skip = !available.includes(runtime);
    let server: RuntimeServer | undefined;

    beforeAll(async () => {
      if (skip) return;
      const dir = join(root, name);
      mkdirSync(dir);
      project(dir);
      server = await start(runtime, app, dir);
    }, 60_000);
    afterAll(() => server?.close());

    it('starts with the install line of the three packages', () => {
      expect(app.install).toMatch(/^(npm install|bun add|deno add) /);
      for (const name of ['@gatehouse-oidc/core', '@gatehouse-oidc/hono', 'hono']) {
        expect(app.install.split(/\s+/)).toContainEqual(expect.stringMatching(`(^|:)${name}$`));
      }
    });

    it.skipIf(skip)('serves discovery and tokens as saved from the page', async () => {
      const source = [...app.files.values()].find((text) => text.includes('createProvider'));
      const baseUrl = /baseUrl: '([^']+)'/.exec(source ?? '')?.[1];
      expect(baseUrl).toBe(`http://localhost:${port}/auth`);
      const origin = server?.origin;
      const discovery = await fetch(`${origin}/auth/oauth/demo/.well-known/openid-configuration`);
      expect(await discovery.json()).toMatchObject({ issuer: `${baseUrl}/oauth/demo` });

      const token = await fetch(`${origin}${new URL(curl?.url ?? '').pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form(curl?.form ?? {}),
      });
      expect(token.status).toBe(200);
      expect(await token.json()).toMatchObject({ token_type: 'Bearer', scope: 'api:read' });
    });
  });
});
