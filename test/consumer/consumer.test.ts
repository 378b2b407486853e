import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedBlocks, importedPackages, installedPackages } from '../docs/markdown.js';
import { ROOT } from '../server/support.js';
import { freePort } from '../support/ports.js';
import {
  expectDiscoveryAndToken,
  type Installation,
  install,
  type RunningApp,
  startApp,
} from './apps.js';
import {
  moduleGraph,
  namedPaths,
  PACKAGE_DIRS,
  packAll,
  packageOf,
  type Tarball,
  unexpectedFiles,
} from './tarballs.js';

const run = promisify(execFile);
/**
 * The resolutions the CLI's `--profile esm-only` ignores (`npx @arethetypeswrong/cli --pack
 * packages/core --profile esm-only` gives the same verdict): CommonJS `require` of an ESM-only
 * package, which attw's TypeScript 5.6 still calls an error; Node.js >= 20.19 and TypeScript
 * >= 5.8 allow it.
 */
const ESM_ONLY_IGNORES: string[] = ['node10', 'node16-cjs'];
/**
 * Packages that do not build on the core: the core itself, and the resource-server kit, which
 * serves the tokens of any RFC 9068 issuer on jose alone.
 */
const WITHOUT_CORE = new Set(['core', 'resource-server']);
/** tsx's loader from the workspace: the TypeScript app runs as `tsx app.ts` would run it. */
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/**
 * The apps (see apps/) in two npm installations outside the workspace, our packages from their
 * tarballs, the rest from the registry: the newest framework majors with every package and the
 * TypeScript app, and the previous majors (Express 4, Fastify 4) under the same ESM and CommonJS
 * apps.
 */
const INSTALLATIONS = {
  latest: {
    packages: PACKAGE_DIRS,
    registry: {
      express: '^5.0.0',
      fastify: '^5.0.0',
      hono: '^4.8.0',
      '@hono/node-server': '^1.14.0',
      '@types/express': '^5.0.0',
      '@types/node': '^20.19.0',
      // For the Store contract of @gatehouse-oidc/core/testing, as a store author installs it.
      vitest: '^4.0.0',
    },
    apps: [
      { fixture: 'esm', type: 'module' },
      { fixture: 'cjs' },
      { fixture: 'ts', type: 'module' },
    ],
  },
  previous: {
    packages: ['core', 'express', 'fastify', 'node-crypto'],
    registry: { express: '^4.17.0', fastify: '^4.0.0' },
    apps: [{ fixture: 'esm', type: 'module' }, { fixture: 'cjs' }],
  },
} satisfies Record<string, Installation>;
type InstallationName = keyof typeof INSTALLATIONS;
const MAJORS = { latest: 5, previous: 4 } as const;

/** The bodies of the ```lang blocks of a Markdown page, in order. */
function codeBlocks(markdown: string, lang: string): string[] {
  return fencedBlocks(markdown)
    .filter((block) => block.lang === lang)
    .map((block) => block.body);
}

/** Saves the first ```lang example of a page as `file`, runs it, and compares with "It prints:". */
async function expectExamplePrints(markdown: string, lang: string, file: string): Promise<void> {
  const [example] = codeBlocks(markdown, lang);
  const [printed] = codeBlocks(markdown.split('It prints:')[1] ?? '', '');
  writeFileSync(file, example ?? '');
  const { stdout } = await run(process.execPath, [file], { cwd: dirname(file) });
  expect(stdout).toBe(printed);
}

const readme = (dir: string) => readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8');

describe('the packages as npm users get them', () => {
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-consumer-'));
  const appDir = (fixture: string, installation: InstallationName = 'latest') =>
    join(work, installation, fixture);
  let tarballs: Tarball[];
  let installed: Record<InstallationName, Promise<void>>;
  const running: RunningApp[] = [];

  beforeAll(async () => {
    tarballs = await packAll(join(work, 'tarballs'));
    // npm installs, both at once, while the tarballs are checked.
    installed = {
      latest: install(join(work, 'latest'), INSTALLATIONS.latest, tarballs),
      previous: install(join(work, 'previous'), INSTALLATIONS.previous, tarballs),
    };
    for (const installation of Object.values(installed)) installation.catch(() => undefined);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((app) => app.stop()));
    await Promise.allSettled(Object.values(installed ?? {}));
    await rm(work, { recursive: true, force: true });
  }, 120_000);

  async function start(...args: Parameters<typeof startApp>): Promise<RunningApp> {
    const app = await startApp(...args);
    running.push(app);
    return app;
  }

  it('packs README, LICENSE, the manifest and dist (JavaScript and types), nothing else', () => {
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    for (const tarball of tarballs) {
      const { name, files, dir } = tarball;
      expect(files, name).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
      expect(files, name).toEqual(expect.arrayContaining(namedPaths(tarball.manifest)));
      expect(files.filter((file) => file.endsWith('.d.ts')).length, name).toBeGreaterThan(0);
      expect(unexpectedFiles(tarball), `${name}; a stale dist? pnpm clean && pnpm build`).toEqual(
        [],
      );
      expect(readFileSync(join(ROOT, 'packages', dir, 'LICENSE'), 'utf8'), name).toBe(license);
      expect(readme(dir), name).toMatch(new RegExp(`^# ${name}\\n`));
      expect(readme(dir), name).toContain(`/blob/main/docs/api/${name}.md`);
      expect(existsSync(join(ROOT, 'docs/api', `${name}.md`)), name).toBe(true);
      const [install] = codeBlocks(readme(dir), 'sh');
      const imported = importedPackages(codeBlocks(readme(dir), 'ts').join('\n'));
      expect(installedPackages(install ?? ''), `${name}: its first sh block`).toEqual(
        expect.arrayContaining([name, ...imported]),
      );
    }
  });

  it('publishes complete manifests: links, engines, sideEffects, exports, ranges on core', () => {
    const core = tarballs.find((tarball) => tarball.dir === 'core')?.manifest;
    for (const { dir, manifest } of tarballs) {
      expect(manifest, dir).toMatchObject({
        license: 'MIT',
        homepage: 'https://github.com/gatehouse-oidc/gatehouse/blob/main/docs/README.md',
        bugs: { url: 'https://github.com/gatehouse-oidc/gatehouse/issues' },
        repository: {
          url: 'git+https://github.com/gatehouse-oidc/gatehouse.git',
          directory: `packages/${dir}`,
        },
        engines: { node: '>=20.19' },
        exports: { './package.json': './package.json' },
      });
      expect(manifest.sideEffects, dir).toBeDefined();
      expect(JSON.stringify(manifest), dir).not.toContain('workspace:');
      const onCore = manifest.peerDependencies?.['@gatehouse-oidc/core'];
      const coreDependency = manifest.dependencies?.['@gatehouse-oidc/core'];
      if (WITHOUT_CORE.has(dir)) expect(onCore ?? coreDependency, dir).toBeUndefined();
      else expect(onCore ?? coreDependency, dir).toBe(`^${core?.version}`);
    }
  });

  it('keeps test code and undeclared packages out of every production entry point', async () => {
    for (const { dir, file, manifest } of tarballs) {
      const unpacked = join(work, 'unpacked', dir);
      mkdirSync(unpacked, { recursive: true });
      await run('tar', ['-xzf', file, '-C', unpacked, '--strip-components=1']);
      const declared = new Set([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        if (typeof target === 'string' || subpath === './testing') continue;
        const entry = (target.default ?? target.import ?? '').replace(/^\.\//, '');
        for (const [module, imports] of moduleGraph(unpacked, entry)) {
          const where = `${manifest.name} ${subpath}: ${module}`;
          expect(module, where).not.toMatch(/contract|\.test\./);
          for (const specifier of imports.filter((name) => !name.startsWith('node:'))) {
            expect(declared, `${where} imports ${specifier}`).toContain(packageOf(specifier));
          }
        }
      }
    }
  });

  it('satisfies publint, suggestions included', async () => {
    for (const { name, file, manifest } of tarballs) {
      const tarball = readFileSync(file);
      const { messages } = await publint({
        pack: {
          tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.length),
        },
        level: 'suggestion',
        strict: true,
      });
      expect(
        messages.map((message) => formatMessage(message, manifest)),
        name,
      ).toEqual([]);
    }
  });

  it('satisfies Are the Types Wrong (profile esm-only: require(esm) is docs/installing.md)', async () => {
    for (const { name, file } of tarballs) {
      const analysis = await checkPackage(createPackageFromTarballData(readFileSync(file)));
      expect(analysis.types, name).toMatchObject({ kind: 'included' });
      if (!analysis.types) continue;
      const problems = analysis.problems.filter(
        (problem) =>
          !('resolutionKind' in problem && ESM_ONLY_IGNORES.includes(problem.resolutionKind)),
      );
      expect(problems, name).toEqual([]);
    }
  });

  for (const installation of ['latest', 'previous'] as const) {
    const major = MAJORS[installation];
    const installedMajor = (name: string) => {
      const manifest = join(work, installation, 'node_modules', name, 'package.json');
      return Number(
        (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version.split('.')[0],
      );
    };

    it(`serves discovery and a client_credentials token from an ESM app on Fastify ${major}`, async () => {
      await installed[installation];
      expect(installedMajor('fastify')).toBe(major);
      const app = await start(appDir('esm', installation), [process.execPath, 'app.mjs'], {
        port: await freePort(),
      });
      await expectDiscoveryAndToken(app.baseUrl);
    }, 240_000);

    it(`serves from a CommonJS app on Express ${major} that requires every entry point it installed`, async () => {
      await installed[installation];
      expect(installedMajor('express')).toBe(major);
      const app = await start(appDir('cjs', installation), [process.execPath, 'app.js'], {
        port: await freePort(),
      });
      await expectDiscoveryAndToken(app.baseUrl);
    }, 240_000);
  }

  it('runs the core README example as pasted, printing what the README says', async () => {
    await installed.latest;
    await expectExamplePrints(readme('core'), 'ts', join(appDir('esm'), 'readme-core.mjs'));
  }, 240_000);

  it('runs the standalone server from its bin with the config of its README', async () => {
    await installed.latest;
    const port = await freePort();
    const [config] = codeBlocks(readme('server'), 'json');
    const ours = { ...JSON.parse(config ?? '{}'), base_url: `http://127.0.0.1:${port}` };
    writeFileSync(join(appDir('esm'), 'gatehouse.json'), JSON.stringify(ours));
    const gatehouse = join(work, 'latest/node_modules/.bin/gatehouse');
    const { stdout } = await run(gatehouse, ['check', '--config', 'gatehouse.json'], {
      cwd: appDir('esm'),
    });
    expect(stdout.trim()).toBe('ok');
    const args = ['serve', '--config', 'gatehouse.json', '--port', `${port}`];
    const app = await start(appDir('esm'), [gatehouse, ...args], { port, mount: '' });
    await expectDiscoveryAndToken(app.baseUrl);
  }, 240_000);

  it('runs the CommonJS example of docs/installing.md, printing what the page says', async () => {
    await installed.latest;
    const page = readFileSync(join(ROOT, 'docs/installing.md'), 'utf8');
    await expectExamplePrints(page, 'js', join(appDir('cjs'), 'installing.cjs'));
  }, 240_000);

  it('typechecks a strict TypeScript app, a CommonJS module of it, and every README example', async () => {
    await installed.latest;
    const readmes = join(appDir('ts'), 'readme');
    mkdirSync(readmes);
    for (const dir of PACKAGE_DIRS) {
      codeBlocks(readme(dir), 'ts').forEach((code, index) => {
        writeFileSync(join(readmes, `${dir}-${index}.ts`), code);
      });
    }
    await run(join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'tsconfig.json'], {
      cwd: appDir('ts'),
    }).catch((error: { stdout: string }) => expect.fail(error.stdout));
  }, 240_000);

  it('runs the Store contract from @gatehouse-oidc/core/testing with vitest, as docs/storage-and-keys.md says', async () => {
    await installed.latest;
    const page = readFileSync(join(ROOT, 'docs/storage-and-keys.md'), 'utf8');
    const section = page.split('## Writing your own Store')[1]?.split('\n## ')[0] ?? '';
    const [testFile] = codeBlocks(section, 'ts');
    const dir = join(work, 'latest', 'store-author');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    writeFileSync(join(dir, 'store.test.ts'), testFile ?? '');
    const vitest = join(work, 'latest/node_modules/.bin/vitest');
    const { stdout } = await run(vitest, ['run', '--reporter=dot'], {
      cwd: dir,
      timeout: 120_000,
    }).catch((error: { stdout: string; stderr: string }) =>
      expect.fail(error.stdout + error.stderr),
    );
    const summary = stripVTControlCharacters(stdout);
    expect(summary).toMatch(/Test Files\s+1 passed \(1\)/);
    expect(summary).toMatch(/Tests\s+\d+ passed \(\d+\)/);
  }, 240_000);

  it('serves from the TypeScript app (Hono on Node.js)', async () => {
    await installed.latest;
    const app = await start(appDir('ts'), [process.execPath, '--import', TSX, 'app.ts'], {
      port: await freePort(),
    });
    await expectDiscoveryAndToken(app.baseUrl);
  }, 240_000);
});
