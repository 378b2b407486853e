import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The packages a module and everything it imports load at run time. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    packages: 'external',
    write: false,
    format: 'esm',
    platform: 'neutral',
    metafile: true,
    logLevel: 'silent',
  });
  const imports = Object.values(metafile.outputs).flatMap((output) => output.imports);
  return [...new Set(imports.filter((each) => each.external).map((each) => each.path))].sort();
}

describe('@opentelemetry/api stays optional', () => {
  it('the main entry loads none of it: without it installed, the core runs as before', async () => {
    const loaded = await packagesLoadedBy('../index.ts');
    expect(loaded).toContain('jose');
    expect(loaded).not.toContainEqual(expect.stringMatching(/^@opentelemetry\//));
  });

  it('only @gatehouse-oidc/core/opentelemetry loads it', async () => {
    expect(await packagesLoadedBy('./index.ts')).toEqual(['@opentelemetry/api']);
  });
});
