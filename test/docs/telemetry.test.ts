import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/telemetry.md', () => {
  it('runs the example as saved from the page, and prints what it says, no secret in it', async () => {
    const { script, output } = documentedRun('telemetry.md', '## A complete run');
    const printed = await runSnippet('telemetry-demo.mts', script);
    expect(printed).toBe(output);
    expect(printed).not.toContain('reports-secret');
  }, 30_000);
});
