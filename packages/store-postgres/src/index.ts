export {
  type MigrateOptions,
  type MigrationResult,
  migrate,
} from './migrate.js';
export type { PostgresStoreOptions } from './options.js';
export { PostgresStore } from './postgres-store.js';
export { prefixProblem as tablePrefixProblem } from './schema.js';
