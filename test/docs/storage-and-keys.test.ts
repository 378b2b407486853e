import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { POSTGRES, serviceUrl } from '../support/services.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/storage-and-keys.md'), 'utf8');
const postgresUrl = await serviceUrl(POSTGRES);

describe.skipIf(!postgresUrl)('docs/storage-and-keys.md', () => {
  it('runs the PostgreSQL example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('storage-and-keys.md', '## PostgreSQL');
    expect(await runSnippet('postgres-demo.mts', script, { DATABASE_URL: postgresUrl ?? '' })).toBe(
      output,
    );
  }, 30_000);
});

/** The install line and the test file of one of the page's "Writing your own …" sections. */
function ownPartSnippets(heading: string, fileName: string): { install: string; testFile: string } {
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(
    `## ${escaped(heading)}[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\`[\\s\\S]*?Save this as \`${escaped(fileName)}\`[\\s\\S]*?\`\`\`ts\\n([\\s\\S]*?)\`\`\``,
  ).exec(DOC);
  if (!match?.[1] || !match[2]) throw new Error(`docs/storage-and-keys.md lost "${heading}"`);
  return { install: match[1], testFile: match[2] };
}

describe.each([
  ['Writing your own Store', 'store.test.ts', 'Store contract: MemoryStore'],
  ['Writing your own signer', 'signer.test.ts', 'JwsSigner contract: webCryptoSigner'],
])('docs/storage-and-keys.md: %s', (heading, fileName, suiteName) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-own-part-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs the core and vitest, which the testing entry needs', () => {
    expect(ownPartSnippets(heading, fileName).install).toBe(
      'npm install @gatehouse-oidc/core\nnpm install --save-dev vitest\n',
    );
  });

  it('runs the contract with vitest from the test file as saved from the page', async () => {
    writeFileSync(join(dir, fileName), ownPartSnippets(heading, fileName).testFile);
    // The workspace packages from their sources, as the tests use them.
    writeFileSync(
      join(dir, 'vitest.config.mts'),
      `import base from ${JSON.stringify(join(ROOT, 'vitest.config.ts'))};
export default { resolve: base.resolve, test: { include: [${JSON.stringify(fileName)}] } };
`,
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--reporter', 'verbose'],
      {
        cwd: dir,
        env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
        timeout: 60_000,
      },
    );
    expect(stdout).toContain(suiteName);
    expect(stdout).toMatch(/Tests {2}\d+ passed/);
    expect(stdout).not.toMatch(/failed|skipped/);
  }, 90_000);
});
