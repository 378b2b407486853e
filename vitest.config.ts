import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their sources, so no build is needed before `pnpm test`.
const workspacePackages = [
  'core',
  'express',
  'fastify',
  'hono',
  'node-crypto',
  'node-outbound',
  'resource-server',
  'server',
  'store-postgres',
  'store-redis',
];
// `@gatehouse-oidc/<name>` is packages/<name>/src/index.ts, a subpath entry such as
// `@gatehouse-oidc/core/testing` is packages/core/src/testing/index.ts.
const alias = workspacePackages.map((name) => ({
  find: new RegExp(`^@gatehouse-oidc/${name}(/[\\w-]+)?$`),
  replacement: fileURLToPath(new URL(`./packages/${name}/src$1/index.ts`, import.meta.url)),
}));

const include = ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * The test files that replace a module (`vi.mock`, `vi.doMock`): the replacement only holds in a
 * module graph of their own, so they run apart from the files that share one.
 */
function filesMockingModules(): string[] {
  const checkout = fileURLToPath(new URL('.', import.meta.url));
  const roots = [
    ...readdirSync(join(checkout, 'packages')).map((name) => join('packages', name, 'src')),
    'test',
  ].filter((root) => existsSync(join(checkout, root)));
  return roots
    .flatMap((root) =>
      readdirSync(join(checkout, root), { recursive: true, encoding: 'utf8' }).map((file) =>
        join(root, file),
      ),
    )
    .filter(
      (file) =>
        file.endsWith('.test.ts') &&
        /\bvi\.(?:doM|m)ock\(/.test(readFileSync(join(checkout, file), 'utf8')),
    );
}
const needsOwnModules = filesMockingModules();

export default defineConfig({
  resolve: { alias },
  test: {
    // One worker per core: most files wait on servers, browsers and databases rather than
    // compute. Vitest's default leaves a core free, one worker on a 2-core CI machine, where the
    // suite took 18 minutes against 12 with two.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        // A worker keeps the modules it imported from one file to the next: importing the
        // workspace afresh for each of some 280 files took a third of the suite's time on a
        // 2-core machine (12.8 minutes against 8.7 without). Each file makes its own providers,
        // stores and servers; the files also pass in shuffled order (--sequence.shuffle.files).
        test: { name: 'shared-modules', include, exclude: needsOwnModules, isolate: false },
      },
      { extends: true, test: { name: 'own-modules', include: needsOwnModules } },
    ],
  },
});
