import type { ServerConfig } from '../../config/server-config.js';
import { describeMigration, migrateStore, storeErrorMessage } from '../../store.js';
import { EXIT_USAGE, type Io, loadOrReport } from './io.js';

/** Exit status when the store could not be migrated (unreachable, refused, not a store table). */
export const EXIT_MIGRATION_FAILED = 1;

/**
 * `gatehouse migrate --config <file>`: creates the schema of the store the config names, when it
 * has one (PostgreSQL), and says what it did. Safe to run again, and from several hosts at once.
 */
export async function migrate(file: string, io: Io): Promise<number> {
  const config = await loadOrReport(file, io);
  if (!config) return EXIT_USAGE;
  return (await migrateAndReport(config, io)) ? 0 : EXIT_MIGRATION_FAILED;
}

/** Migrates the store and prints what that did, or why it failed; false when it failed. */
export async function migrateAndReport(config: ServerConfig, io: Io): Promise<boolean> {
  try {
    io.out(describeMigration(config, await migrateStore(config)));
    return true;
  } catch (error) {
    io.err(`migration failed: ${storeErrorMessage(error, config.store)}`);
    return false;
  }
}
