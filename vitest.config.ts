import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their sources, so no build is needed before `pnpm test`.
const workspacePackages = [
  'core',
  'express',
  'fastify',
  'hono',
  'node-crypto',
  'server',
  'store-postgres',
  'store-redis',
];
const alias = Object.fromEntries(
  workspacePackages.map((name) => [
    `@gatehouse/${name}`,
    fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url)),
  ]),
);

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
