import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { fencedBlocks } from './markdown.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/delegation.md'), 'utf8');

describe('docs/delegation.md', () => {
  it('runs the complete example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('delegation.md', 'A complete run in one file');
    expect(await runSnippet('delegation.mts', script)).toBe(output);
  }, 30_000);

  it('shows client and realm settings the schemas accept', async () => {
    const { clientSchema, realmSchema } = await import('@gatehouse-oidc/core');
    const [client, realm] = fencedBlocks(DOC).filter((block) => block.lang === 'json');
    expect(clientSchema.safeParse(JSON.parse(client?.body ?? '{}')).success).toBe(true);
    const trusted = JSON.parse(realm?.body ?? '{}');
    // The page leaves the workload's key set empty; a real one has at least one key.
    const parsed = realmSchema.safeParse({ name: 'r', ...trusted });
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'trusted_issuers.1.jwks.keys',
    ]);
  });
});
