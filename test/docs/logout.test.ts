import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/logout.md', () => {
  it('runs the example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('logout.md', '## A complete run');
    expect(await runSnippet('logout-demo.mts', script)).toBe(output);
  }, 30_000);
});
