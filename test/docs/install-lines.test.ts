import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { fencedBlocks, importedPackages, installedPackages, isScript } from './markdown.js';

/**
 * Pages whose code blocks are not code a reader installs anything for. Each holds no script at
 * all (the test checks it); a command it runs comes from npm or from a clone of this repository,
 * which the page says.
 */
const NOTHING_TO_INSTALL = new Map([
  ['architecture.md', 'a diagram of the code, no code to run'],
  ['certification.md', 'the settings of a certifiable realm and tables of results, no code to run'],
  ['browser-sign-in.md', 'shell commands against the demo server (`pnpm start`)'],
  ['errors.md', 'a fragment of realm configuration, no code to run'],
  ['performance.md', '`pnpm bench` in a clone and what it prints'],
  ['performance-history.md', 'what earlier `pnpm bench` runs printed, no code to run'],
  [
    'standalone-server.md',
    'the `gatehouse` command (installed from npm or run in a clone), its config file and HTTP calls',
  ],
]);

/** docs/api is the generated reference: doc-comment fragments, checked by api-reference.test.ts. */
const GENERATED = 'api/';

const pages = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.md') && !name.startsWith(GENERATED))
  .map((name) => {
    const text = readFileSync(join(ROOT, 'docs', name), 'utf8');
    return { name, text, blocks: fencedBlocks(text) };
  })
  .filter((page) => page.blocks.length > 0);

describe('docs/ pages start with their install line', () => {
  for (const { name, text, blocks } of pages) {
    const scripts = blocks.filter(isScript);
    const imported = importedPackages(scripts.map((block) => block.body).join('\n'));
    const exemption = NOTHING_TO_INSTALL.get(name);

    if (exemption) {
      it(`${name} has nothing to install: ${exemption}`, () => {
        expect(scripts.map((block) => block.lang)).toEqual([]);
      });
      continue;
    }

    it(`${name}: its first block installs every package its code imports`, () => {
      const [first] = blocks;
      expect(
        first?.lang,
        'a page with code opens with a sh block holding its npm install line, or is listed in NOTHING_TO_INSTALL with its reason',
      ).toBe('sh');
      const installed = installedPackages(first?.body ?? '');
      expect(installed.length).toBeGreaterThan(0);
      expect(imported.filter((name) => !installed.includes(name))).toEqual([]);
    });

    it(`${name}: says before its first script that it is an ES module, and how to run TypeScript`, () => {
      const before = text.slice(0, scripts[0]?.offset ?? 0);
      expect(before).toContain('"type": "module"');
      if (scripts.some((block) => block.lang === 'ts')) expect(before).toContain('npx tsx');
    });
  }

  it('exempts only pages that exist and show code', () => {
    const withCode = new Set(pages.map((page) => page.name));
    expect([...NOTHING_TO_INSTALL.keys()].filter((name) => !withCode.has(name))).toEqual([]);
  });
});
