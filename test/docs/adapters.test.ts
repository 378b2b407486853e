import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/adapters.md', () => {
  it('runs the adapter written on @gatehouse-oidc/core/adapter, and prints what it says', async () => {
    const { script, output } = documentedRun('adapters.md', '## Writing an adapter');
    expect(await runSnippet('fetch-adapter.mts', script)).toBe(output);
  }, 30_000);

  it.each([
    ['an Express', 'express'],
    ['a Fastify', 'fastify'],
    ['a Hono', 'hono'],
  ])(
    'answers the metadata at the root of %s app, as it says',
    async (app, file) => {
      const { script, output } = documentedRun('adapters.md', `### At the root of ${app} app`);
      expect(await runSnippet(`well-known-${file}.mts`, script)).toBe(output);
    },
    30_000,
  );
});
