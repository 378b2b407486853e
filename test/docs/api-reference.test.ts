import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_DOCS_DIR,
  publicEntryPoints,
  REGENERATE_COMMAND,
  renderApiDocs,
} from '../../scripts/api-docs.js';
import { ROOT } from '../server/support.js';

/** Every file under `dir`, by path relative to it, with its text. */
function pages(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const file = join(entry.parentPath, entry.name);
        return [relative(dir, file), readFileSync(file, 'utf8')];
      }),
  );
}

describe('docs/api, the API reference', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'gatehouse-api-docs-'));
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  beforeAll(async () => {
    // The reference is made from the built declarations (a no-op after `pnpm typecheck`).
    await promisify(execFile)('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT });
    await renderApiDocs(fresh);
  }, 120_000);

  it('is what TypeDoc makes of the packages today', () => {
    const committed = pages(API_DOCS_DIR);
    const generated = pages(fresh);
    const stale = `docs/api is out of date; run: ${REGENERATE_COMMAND}`;
    expect([...committed.keys()].sort(), stale).toEqual([...generated.keys()].sort());
    for (const [file, text] of generated)
      expect(committed.get(file), `${stale} (${file})`).toBe(text);
  });

  it('has a page for every entry point of every package, linked from its index', () => {
    const index = readFileSync(join(API_DOCS_DIR, 'README.md'), 'utf8');
    const modules = publicEntryPoints().map((entry) => entry.module);
    expect(modules).toContain('@gatehouse-oidc/core');
    for (const module of modules) expect(index).toContain(`[${module}](${module}.md)`);
  });
});
