import { readFileSync } from 'node:fs';
import { clientSchema, realmSchema, resourceSchema } from '@gatehouse-oidc/core';
import { describe, expect, it } from 'vitest';
import {
  CONFIGURATION_DOCS_PATH,
  REGENERATE_COMMAND,
  renderConfigurationDocs,
} from '../../packages/core/scripts/config-docs.js';
import { providerOptionsSchema } from '../../packages/core/src/config/provider.js';

describe('docs/configuration.md', () => {
  it('matches the zod schemas', () => {
    const committed = readFileSync(CONFIGURATION_DOCS_PATH, 'utf8');
    expect(committed, `docs/configuration.md is out of date; run: ${REGENERATE_COMMAND}`).toBe(
      renderConfigurationDocs(),
    );
  });

  it('has a row for every field of every schema', () => {
    const docs = renderConfigurationDocs();
    for (const schema of [providerOptionsSchema, realmSchema, resourceSchema, clientSchema]) {
      for (const field of Object.keys(schema.shape)) expect(docs).toContain(`| \`${field}\` |`);
    }
  });
});
