/**
 * Adapters, stores and node-crypto take `@gatehouse-oidc/core` as a peer dependency with a plain
 * caret range rather than `workspace:^`, so that changesets does not turn every 0.x minor release
 * into 1.0.0 (docs/decisions.md). Changesets leaves such a range alone, so `pnpm version-packages`
 * runs this after `changeset version` to set it to `^{core's new version}`;
 * test/consumer/core-peer-range.test.ts fails while a range is stale.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CORE = '@gatehouse-oidc/core';
const PACKAGES = new URL('../packages/', import.meta.url);

interface Manifest {
  version: string;
  peerDependencies?: Record<string, string>;
}

export interface StaleRange {
  packageJson: string;
  range: string;
  expected: string;
}

function readManifest(file: URL): Manifest {
  return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
}

/** The package.json files whose peer range on core is not `^{core's version}`. */
export function staleCorePeerRanges(): StaleRange[] {
  const expected = `^${readManifest(new URL('core/package.json', PACKAGES)).version}`;
  return readdirSync(PACKAGES).flatMap((name) => {
    const file = new URL(`${name}/package.json`, PACKAGES);
    const range = readManifest(file).peerDependencies?.[CORE];
    return range === undefined || range === expected
      ? []
      : [{ packageJson: fileURLToPath(file), range, expected }];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { packageJson, expected } of staleCorePeerRanges()) {
    const manifest = JSON.parse(readFileSync(packageJson, 'utf8'));
    manifest.peerDependencies[CORE] = expected;
    writeFileSync(packageJson, `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`${packageJson}: ${CORE} ${expected}`);
  }
}
