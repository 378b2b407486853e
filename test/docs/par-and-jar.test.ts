import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/par-and-jar.md', () => {
  it('runs the PAR and JAR example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('par-and-jar.md', 'A complete run in one file');
    expect(await runSnippet('par-demo.mts', script)).toBe(output);
  }, 30_000);
});
