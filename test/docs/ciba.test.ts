import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';

const DOC = readFileSync(join(ROOT, 'docs/ciba.md'), 'utf8');

/** The embedder's complete run of docs/ciba.md, and the output the page says it prints. */
function documentedRun(): { script: string; output: string } {
  const match =
    /A complete run in one file[\s\S]*?```ts\n([\s\S]*?)```\n\nIt prints:\n\n```\n([\s\S]*?)```/.exec(
      DOC,
    );
  if (!match?.[1] || !match[2]) throw new Error('docs/ciba.md lost its complete run');
  return { script: match[1], output: match[2] };
}

describe('docs/ciba.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ciba-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the AuthenticatorPush example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun();
    const file = join(dir, 'ciba-demo.mts');
    writeFileSync(file, script);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      // @gatehouse/core from its sources, as the tests use it.
      env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'test/tsconfig.json') },
      timeout: 20_000,
    });
    expect(stdout).toBe(output);
  }, 30_000);

  it('draws every state of the request in its diagram', () => {
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '';
    for (const state of ['pending', 'approved', 'denied', 'cancelled', 'issued', 'expired']) {
      expect(diagram).toContain(`${state} -->`);
    }
  });
});
