import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { fencedBlocks } from './markdown.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/dynamic-client-registration.md'), 'utf8');

describe('docs/dynamic-client-registration.md', () => {
  it('runs the complete example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun(
      'dynamic-client-registration.md',
      'A complete run in one file',
    );
    expect(await runSnippet('register.mts', script)).toBe(output);
  }, 30_000);

  it('shows realm settings the schema and the realm rules accept', async () => {
    const { validateRealm } = await import('@gatehouse-oidc/core');
    const json = fencedBlocks(DOC).find((block) => block.lang === 'json');
    expect(() => validateRealm(JSON.parse(json?.body ?? '{}'))).not.toThrow();
  });
});
