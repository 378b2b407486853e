import { describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/resource-server.md', () => {
  it('runs the protected API, from challenge to token, and prints what it says', async () => {
    const { script, output } = documentedRun('resource-server.md', '## A protected API');
    const port = await freePort();
    const printed = await runSnippet('notes.mts', script, { PORT: `${port}` });
    expect(printed).toBe(output.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`));
  }, 30_000);
});
