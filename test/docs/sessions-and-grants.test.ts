import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/sessions-and-grants.md', () => {
  it('runs the example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('sessions-and-grants.md', '## A complete run');
    expect(await runSnippet('sessions-demo.mts', script)).toBe(output);
  }, 30_000);

  it('runs the rotation example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun(
      'sessions-and-grants.md',
      'A client whose secret is rotated, then',
    );
    expect(await runSnippet('rotate-demo.mts', script)).toBe(output);
  }, 30_000);
});
