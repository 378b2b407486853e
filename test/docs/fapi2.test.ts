import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/fapi2.md', () => {
  it('runs the FAPI 2.0 example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('fapi2.md', 'A complete run in one file');
    expect(await runSnippet('fapi2-demo.mts', script)).toBe(output);
  }, 30_000);
});
