import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../../packages/server/src/cli/commands/io.js';
import { migrate } from '../../packages/server/src/cli/commands/migrate.js';
import { freePort } from '../support/ports.js';
import { dropPostgresStore, sql, uniquePrefix } from '../support/service-admin.js';
import { POSTGRES, serviceUrl } from '../support/services.js';
import {
  CliProcess,
  configDir,
  killAllCli,
  serviceTokenRequest,
  validConfig,
  withChanges,
} from './support.js';

const dir = configDir();
const postgresUrl = await serviceUrl(POSTGRES);
/** How the commands name the test database: host, port and database, never the user. */
const where = (url: string) => `PostgreSQL at ${new URL(url).host}${new URL(url).pathname}`;
/** Table prefixes this file used, dropped at the end. */
const prefixes: string[] = [];

afterAll(async () => {
  killAllCli();
  dir.remove();
  if (postgresUrl) for (const prefix of prefixes) await dropPostgresStore(postgresUrl, prefix);
});

/** `gatehouse migrate` in this process, with what it printed. */
async function runMigrate(store: Record<string, unknown>) {
  const file = dir.write(`${uniquePrefix('config')}.json`, withChanges(validConfig(), store));
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (line) => out.push(line), err: (line) => err.push(line) };
  return { code: await migrate(file, io), out, err };
}

function freshPrefix(): string {
  const prefix = uniquePrefix('migrate');
  prefixes.push(prefix);
  return prefix;
}

describe('gatehouse migrate', () => {
  it('has nothing to do for the memory store', async () => {
    expect(await runMigrate({})).toEqual({
      code: 0,
      out: ['nothing to migrate: the memory store keeps no schema'],
      err: [],
    });
  });

  it('has nothing to do for Redis, and does not connect to it', async () => {
    expect(await runMigrate({ store: `redis://127.0.0.1:${await freePort()}` })).toEqual({
      code: 0,
      out: [
        'nothing to migrate: the Redis store needs no schema, its keys are created as they are written',
      ],
      err: [],
    });
  });

  it('exits 2 on an invalid config, before connecting anywhere', async () => {
    const { code, out, err } = await runMigrate({
      store: 'postgres://db.invalid/auth',
      store_options: { table_prefix: 'Bad' },
    });
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err.slice(1)).toEqual([
      'store_options.table_prefix: must be lower-case letters, digits and underscores, not starting with a digit',
    ]);
  });

  it('exits 1 with the reason when PostgreSQL cannot be reached, never showing the password', async () => {
    const port = await freePort();
    const { code, out, err } = await runMigrate({
      store: `postgres://gatehouse:hunter2-secret@127.0.0.1:${port}/auth`,
    });
    expect({ code, out }).toEqual({ code: 1, out: [] });
    expect(err).toEqual([
      `migration failed: PostgreSQL store unavailable: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });

  describe.skipIf(!postgresUrl)('on PostgreSQL', () => {
    const url = postgresUrl as string;

    it('creates the table once, and changes nothing when run again', async () => {
      const prefix = freshPrefix();
      const settings = { store: url, store_options: { table_prefix: prefix } };
      expect(await runMigrate(settings)).toEqual({
        code: 0,
        out: [`${where(url)}: created table "${prefix}records" and its indexes`],
        err: [],
      });
      await sql(
        url,
        `INSERT INTO "${prefix}records" (namespace, id, value, revision) VALUES ('n', 'i', '{}', 1)`,
      );
      expect(await runMigrate(settings)).toEqual({
        code: 0,
        out: [
          `${where(url)}: table "${prefix}records" already exists; its columns and indexes are in place`,
        ],
        err: [],
      });
      expect(await sql(url, `SELECT id FROM "${prefix}records"`)).toEqual([{ id: 'i' }]);
    });

    it('exits 1 when a table of that name is not a store table, and leaves it alone', async () => {
      const prefix = freshPrefix();
      await sql(url, `CREATE TABLE "${prefix}records" (id integer)`);
      const { code, out, err } = await runMigrate({
        store: url,
        store_options: { table_prefix: prefix },
      });
      expect({ code, out }).toEqual({ code: 1, out: [] });
      expect(err).toEqual([
        `migration failed: table "${prefix}records" exists but is not a Gatehouse store table: it lacks namespace text, id text, value text, expires_at timestamp with time zone, grant_id text, consumed boolean, revision bigint; choose another tablePrefix`,
      ]);
      expect(
        await sql(
          url,
          `SELECT count(*)::int AS columns FROM information_schema.columns WHERE table_name = '${prefix}records'`,
        ),
      ).toEqual([{ columns: 1 }]);
    });
  });
});

// Each test starts servers through tsx, which a machine running other suites makes slow.
describe.skipIf(!postgresUrl)('gatehouse serve on PostgreSQL', { timeout: 45_000 }, () => {
  const url = postgresUrl as string;

  async function serve(storeOptions: Record<string, unknown>) {
    const file = dir.write(
      `${uniquePrefix('serve')}.json`,
      withChanges(validConfig(), { store: url, store_options: storeOptions }),
    );
    return new CliProcess(['serve', '--config', file, '--port', '0']);
  }

  it('creates the schema before listening by default, and is healthy', async () => {
    const prefix = freshPrefix();
    const cli = await serve({ table_prefix: prefix });
    const origin = await cli.origin();
    await cli.waitFor(/^store: /m);
    const lines = cli.stdout.split('\n');
    expect(lines[0]).toBe(`${where(url)}: created table "${prefix}records" and its indexes`);
    expect(lines).toContain(`store: ${where(url)}`);
    const health = await fetch(`${origin}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    cli.kill();
  });

  it('creates the schema once when several instances start at once, and each is healthy', async () => {
    const prefix = freshPrefix();
    const file = dir.write(
      `${uniquePrefix('serve')}.json`,
      withChanges(validConfig(), { store: url, store_options: { table_prefix: prefix } }),
    );
    const clis = [1, 2, 3].map(() => new CliProcess(['serve', '--config', file, '--port', '0']));
    const origins = await Promise.all(clis.map((cli) => cli.origin()));
    const firstLines = clis.map((cli) => cli.stdout.split('\n')[0]);
    expect(firstLines.filter((line) => line?.includes('created table'))).toHaveLength(1);
    expect(firstLines.filter((line) => line?.includes('already exists'))).toHaveLength(2);
    for (const origin of origins) {
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    }
    for (const cli of clis) cli.kill();
  });

  it('with migrate_on_start false answers 503 on /healthz, says why, and turns healthy once migrated', async () => {
    const prefix = freshPrefix();
    const cli = await serve({ table_prefix: prefix, migrate_on_start: false });
    const origin = await cli.origin();
    await cli.waitFor(/^warning: \/healthz answers 503 until the store answers: /m, 'stderr');
    expect(cli.stderr).toContain(
      `PostgreSQL store table "${prefix}records" does not exist: run the migration (gatehouse migrate --config …)`,
    );
    expect((await fetch(`${origin}/healthz`)).status).toBe(503);

    expect((await runMigrate({ store: url, store_options: { table_prefix: prefix } })).code).toBe(
      0,
    );
    const health = await fetch(`${origin}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    cli.kill();
  });
});

describe('gatehouse serve on PostgreSQL, creating its schema', () => {
  it('exits 1 before listening when PostgreSQL cannot be reached, for a supervisor to retry', async () => {
    const port = await freePort();
    const file = dir.write(
      'unreachable.json',
      withChanges(validConfig(), {
        store: `postgres://gatehouse:hunter2-secret@127.0.0.1:${port}/auth`,
        cookie_secret: 'migrate-cookie-secret-0123456789abcdef',
      }),
    );
    const cli = new CliProcess(['serve', '--config', file, '--port', '0']);
    expect(await cli.exited).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toBe(
      `migration failed: PostgreSQL store unavailable: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });
});

describe.skipIf(!postgresUrl)('buildServer on PostgreSQL (the library API)', () => {
  const url = postgresUrl as string;

  it('creates the schema when the app gets ready, and answers from it', async () => {
    const prefix = freshPrefix();
    const { app } = buildServer(
      parseServerConfig(
        withChanges(validConfig(), { store: url, store_options: { table_prefix: prefix } }),
      ),
    );
    try {
      await app.ready();
      const token = await app.inject(serviceTokenRequest('demo'));
      expect(token.statusCode, token.body).toBe(200);
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('leaves the schema alone with migrate_on_start false', async () => {
    const prefix = freshPrefix();
    const { app } = buildServer(
      parseServerConfig(
        withChanges(validConfig(), {
          store: url,
          store_options: { table_prefix: prefix, migrate_on_start: false },
        }),
      ),
    );
    try {
      await app.ready();
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(503);
    } finally {
      await app.close();
    }
  });
});
