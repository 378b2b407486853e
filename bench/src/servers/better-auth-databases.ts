import type { BetterAuthOptions } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { getSchema } from 'better-auth/db';
import { getMigrations } from 'better-auth/db/migration';
import pg from 'pg';
import { uniquePrefix } from '../../../test/support/service-admin.js';
import { STORE_SERVICES } from '../server-names.js';
import { ServiceUnavailableError } from './stores.js';

/** Where better-auth keeps its rows in a bench run, and how the run's rows are removed. */
export interface BetterAuthDatabase {
  readonly adapter: BetterAuthOptions['database'];
  /** Creates its tables for `options` (its plugins add some). */
  prepare(options: BetterAuthOptions): Promise<void>;
  /** The schema of this run in the shared PostgreSQL; undefined in memory. */
  readonly prefix?: string;
  /** After the server closed: drops the run's schema. */
  cleanUp(): Promise<void>;
}

/**
 * Its memory adapter, which its docs offer for development and tests: it scans arrays, and each
 * transaction copies the whole database twice (structuredClone) and merges it back, so a request
 * under a transaction costs in proportion to everything stored (docs/performance.md).
 */
export function betterAuthMemory(): BetterAuthDatabase {
  const tables: Record<string, unknown[]> = {};
  return {
    adapter: memoryAdapter(tables),
    // The memory adapter stores into the tables it is given, and each must exist.
    prepare: async (options) => {
      for (const table of Object.keys(getSchema(options))) tables[table] = [];
    },
    cleanUp: async () => {},
  };
}

/**
 * PostgreSQL as its docs connect it (a `pg` Pool handed to `database`, its Kysely adapter; pool
 * size pg's default 10, as ours on PostgreSQL), in a schema of this run's own in the bench's
 * PostgreSQL (the `search_path` of every connection), its tables created by its own migrations.
 */
export async function betterAuthPostgres(): Promise<BetterAuthDatabase> {
  const service = STORE_SERVICES['ours-postgres'];
  const url = process.env[service.envVar] || service.defaultUrl;
  const schema = uniquePrefix('bench_better_auth').slice(0, -1);
  const admin = new pg.Client({ connectionString: url });
  admin.on('error', () => {});
  try {
    await admin.connect();
  } catch (error) {
    const { hostname, port } = new URL(url);
    throw new ServiceUnavailableError(
      `${service.name} does not answer at ${hostname}:${port} (${(error as Error).message}); ` +
        `start it there or set ${service.envVar}`,
    );
  }
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` });
  return {
    adapter: pool,
    prefix: schema,
    prepare: async (options) => {
      const { runMigrations } = await getMigrations(options);
      await runMigrations();
    },
    cleanUp: async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    },
  };
}
