import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { fencedBlocks } from './markdown.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/client-id-metadata-documents.md'), 'utf8');

describe('docs/client-id-metadata-documents.md', () => {
  it('runs the complete example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun(
      'client-id-metadata-documents.md',
      'A complete run in one file',
    );
    expect(await runSnippet('agents.mts', script)).toBe(output);
  }, 30_000);

  it('shows realm settings the schema accepts', async () => {
    const { realmSchema } = await import('@gatehouse-oidc/core');
    const json = fencedBlocks(DOC).find((block) => block.lang === 'json');
    expect(realmSchema.safeParse(JSON.parse(json?.body ?? '{}')).success).toBe(true);
  });
});
