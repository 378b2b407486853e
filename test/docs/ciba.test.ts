import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/ciba.md'), 'utf8');

describe('docs/ciba.md', () => {
  it('runs the AuthenticatorPush example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('ciba.md', 'A complete run in one file');
    expect(await runSnippet('ciba-demo.mts', script)).toBe(output);
  }, 30_000);

  it('runs the ping mode example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('ciba.md', '## Ping mode');
    expect(await runSnippet('ciba-ping.mts', script)).toBe(output);
  }, 30_000);

  it('draws every state of the request in its diagram', () => {
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '';
    for (const state of ['pending', 'approved', 'denied', 'cancelled', 'issued', 'expired']) {
      expect(diagram).toContain(`${state} -->`);
    }
  });
});
