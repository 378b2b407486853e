import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { POSTGRES, serviceUrl } from '../support/services.js';

const DOC = readFileSync(join(ROOT, 'docs/storage-and-keys.md'), 'utf8');
const postgresUrl = await serviceUrl(POSTGRES);

/** The PostgreSQL section's complete run, and the output the page says it prints. */
function documentedRun(): { script: string; output: string } {
  const match =
    /## PostgreSQL[\s\S]*?A complete run in[\s\S]*?```ts\n([\s\S]*?)```\n\nIt prints:\n\n```\n([\s\S]*?)```/.exec(
      DOC,
    );
  if (!match?.[1] || !match[2]) throw new Error('docs/storage-and-keys.md lost its PostgreSQL run');
  return { script: match[1], output: match[2] };
}

describe.skipIf(!postgresUrl)('docs/storage-and-keys.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-storage-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the PostgreSQL example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun();
    const file = join(dir, 'postgres-demo.mts');
    writeFileSync(file, script);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      // The workspace packages from their sources, as the tests use them.
      env: {
        ...process.env,
        DATABASE_URL: postgresUrl,
        TSX_TSCONFIG_PATH: join(ROOT, 'test/tsconfig.json'),
      },
      timeout: 20_000,
    });
    expect(stdout).toBe(output);
  }, 30_000);
});
