import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/dpop.md', () => {
  it('runs the complete example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('dpop.md', 'A complete run in one file');
    expect(await runSnippet('dpop-demo.mts', script)).toBe(output);
  }, 30_000);
});
