import { availableParallelism } from 'node:os';
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

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // One worker per core: most files wait on servers, browsers and databases rather than
    // compute. Vitest's default leaves a core free, one worker on a 2-core CI machine, where the
    // suite took 18 minutes against 12 with two.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
