import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { ConfigError, StoreUnavailableError } from '@gatehouse-oidc/core';
import { describeStoreContract, realTime } from '@gatehouse-oidc/core/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { POSTGRES, serviceUrl } from '../../../test/support/services.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { migrate } from './migrate.js';
import type { PostgresStoreOptions } from './options.js';
import { PostgresStore } from './postgres-store.js';
import { quote, schemaNames } from './schema.js';

const url = await serviceUrl(POSTGRES);
const connectionString = url ?? '';

describe.skipIf(!url)('PostgresStore', () => {
  /** Tables this run created, dropped at the end so the shared database stays clean. */
  const prefixes: string[] = [];
  const stores: PostgresStore[] = [];
  let admin: pg.Client;

  /** A migrated table no other test or run uses. */
  async function freshPrefix(): Promise<string> {
    const prefix = `test_${randomBytes(5).toString('hex')}_`;
    prefixes.push(prefix);
    await migrate({ connectionString, tablePrefix: prefix });
    return prefix;
  }

  function openStore(options: Partial<PostgresStoreOptions> & { tablePrefix: string }) {
    const store = new PostgresStore({ connectionString, sweepIntervalMs: 0, ...options });
    stores.push(store);
    return store;
  }

  /** The ids physically in the table, expired or not. */
  async function rowsIn(prefix: string): Promise<string[]> {
    const { rows } = await admin.query<{ id: string }>(
      `SELECT id FROM ${quote(schemaNames(prefix).table)} ORDER BY id`,
    );
    return rows.map((row) => row.id);
  }

  function postgresAddress() {
    const { hostname, port } = new URL(connectionString);
    return { host: hostname, port: Number(port || POSTGRES.defaultPort) };
  }

  /** The test database, reached through a proxy on `port`. */
  function proxiedUrl(port: number): string {
    const proxied = new URL(connectionString);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(port);
    return proxied.href;
  }

  let contractPrefix: string;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString });
    await admin.connect();
    contractPrefix = await freshPrefix();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    for (const prefix of prefixes) {
      const names = schemaNames(prefix);
      await admin.query(`DROP TABLE IF EXISTS ${quote(names.table)} CASCADE`);
      await admin.query(`DROP TABLE IF EXISTS ${quote(names.caps)}`);
      await admin.query(`DROP SEQUENCE IF EXISTS ${quote(names.revisions)}`);
      await admin.query(
        `DROP FUNCTION IF EXISTS ${quote(names.grantOpen)}(text), ${quote(names.revokeGrant)}(text, float8)`,
      );
    }
    await admin?.end();
  });

  describeStoreContract(
    'PostgreSQL',
    async () => new PostgresStore({ connectionString, tablePrefix: contractPrefix }),
    () => realTime(),
  );

  describe('statements', () => {
    it('makes every Store method one round trip', async () => {
      const store = openStore({ tablePrefix: contractPrefix });
      await store.ping(); // connect outside the count
      const query = vi.spyOn(pg.Client.prototype, 'query');
      const roundTrips = async (call: () => Promise<unknown>) => {
        query.mockClear();
        await call();
        return query.mock.calls.length;
      };
      const id = randomBytes(8).toString('hex');
      const grant = { grantId: `g-${id}`, ttlSeconds: 60 };
      const counts = {
        set: await roundTrips(() => store.set('ns', id, { v: 1 }, grant)),
        add: await roundTrips(() => store.add('ns', `${id}-2`, { v: 2 }, grant)),
        get: await roundTrips(() => store.get('ns', id)),
        consume: await roundTrips(() => store.consume('ns', id)),
        read: await roundTrips(() => store.read('ns', id)),
        replace: await roundTrips(() => store.replace('ns', id, 1, { v: 3 })),
        listGrant: await roundTrips(() => store.listGrant(grant.grantId)),
        delete: await roundTrips(() => store.delete('ns', id)),
        revokeGrant: await roundTrips(() => store.revokeGrant(grant.grantId)),
        ping: await roundTrips(() => store.ping()),
      };
      expect(Object.values(counts)).toEqual(Object.values(counts).map(() => 1));
    });

    it('uses the indexes for the grant lookups and the sweep', async () => {
      const { table } = schemaNames(contractPrefix);
      const plan = async (sql: string, values: unknown[]) => {
        await admin.query('BEGIN');
        try {
          await admin.query('SET LOCAL enable_seqscan = off');
          const { rows } = await admin.query(`EXPLAIN ${sql}`, values);
          return rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
        } finally {
          await admin.query('ROLLBACK');
        }
      };
      const grantPlan = await plan(
        `SELECT namespace, id FROM ${quote(table)} WHERE grant_id = $1::text`,
        ['g'],
      );
      expect(grantPlan).toContain(`${table}_grant_id`);
      const sweepPlan = await plan(`SELECT id FROM ${quote(table)} WHERE expires_at <= now()`, []);
      expect(sweepPlan).toContain(`${table}_expires_at`);
    });
  });

  describe('keys', () => {
    it('keeps ids apart and intact that PostgreSQL text cannot hold as they are', async () => {
      const store = openStore({ tablePrefix: contractPrefix });
      const run = randomBytes(8).toString('hex');
      const ids = [
        'a\u0000b',
        'a\u0000c',
        '\uD800',
        '\uDBFF',
        '\uDC00x',
        '\u0001"a"',
        '"a"',
        'a\uD83D\uDE00',
      ].map((id) => `${run}${id}`);
      const grantId = `${run}\u0000grant`;
      for (const [index, id] of ids.entries()) await store.set('ns', id, { index }, { grantId });
      for (const [index, id] of ids.entries()) expect(await store.get('ns', id)).toEqual({ index });
      const listed = (await store.listGrant(grantId)).map((key) => key.id);
      expect(listed.sort()).toEqual([...ids].sort());
      expect(await store.listGrant(`${run}\uFFFDgrant`)).toEqual([]);
    });

    it('round-trips values jsonb would refuse or reorder', async () => {
      const store = openStore({ tablePrefix: contractPrefix });
      const id = randomBytes(8).toString('hex');
      const value = { z: 'nul \u0000 and lone \uD800', a: 1e-7, big: 2 ** 53 - 1 };
      await store.set('ns', id, value);
      expect(JSON.stringify(await store.get('ns', id))).toBe(JSON.stringify(value));
    });
  });

  describe('sweep', () => {
    it('deletes expired rows only, in batches of 1,000', async () => {
      const prefix = await freshPrefix();
      const store = openStore({ tablePrefix: prefix });
      await store.set('ns', 'expiring', { v: 1 }, { ttlSeconds: 0.05 });
      await store.set('ns', 'long-lived', { v: 2 }, { ttlSeconds: 3600 });
      await store.set('ns', 'forever', { v: 3 });
      const { table, revisions } = schemaNames(prefix);
      await admin.query(
        `INSERT INTO ${quote(table)} (namespace, id, value, expires_at, revision)
         SELECT 'bulk', n::text, '{}', now() - interval '1 minute', nextval('${quote(revisions)}')
         FROM generate_series(1, 2500) AS n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));

      const query = vi.spyOn(pg.Client.prototype, 'query');
      expect(await store.sweep()).toBe(2501);
      expect(query).toHaveBeenCalledTimes(3);
      expect(await rowsIn(prefix)).toEqual(['forever', 'long-lived']);
      expect(await store.sweep()).toBe(0);
    });

    it('runs in the background every sweepIntervalMs', async () => {
      const prefix = await freshPrefix();
      const store = openStore({ tablePrefix: prefix, sweepIntervalMs: 50 });
      await store.set('ns', 'expiring', { v: 1 }, { ttlSeconds: 0.05 });
      await store.set('ns', 'kept', { v: 2 });
      await vi.waitFor(async () => expect(await rowsIn(prefix)).toEqual(['kept']), {
        timeout: 2_000,
        interval: 50,
      });
    });
  });

  describe('migration', () => {
    it('creates the schema once and then changes nothing', async () => {
      const prefix = `test_${randomBytes(5).toString('hex')}_`;
      prefixes.push(prefix);
      const options = { connectionString, tablePrefix: prefix };
      expect(await migrate(options)).toEqual({ table: `${prefix}records`, created: true });
      const store = openStore({ tablePrefix: prefix });
      await store.set('ns', 'kept', { v: 1 });
      expect(await migrate(options)).toEqual({ table: `${prefix}records`, created: false });
      expect(await store.get('ns', 'kept')).toEqual({ v: 1 });
    });

    it('brings a table made by 0.4 up to date: the note column and the grant functions', async () => {
      const prefix = await freshPrefix();
      const names = schemaNames(prefix);
      await admin.query(`ALTER TABLE ${quote(names.table)} DROP COLUMN note`);
      await admin.query(
        `DROP FUNCTION ${quote(names.grantOpen)}(text), ${quote(names.revokeGrant)}(text, float8)`,
      );
      const store = openStore({ tablePrefix: prefix });
      const outdated = await store.revokeGrant('g').catch((error: unknown) => error);
      expect(outdated).toBeInstanceOf(StoreUnavailableError);
      expect((outdated as Error).message).toBe(
        `PostgreSQL store table "${prefix}records" was made by an earlier version: run the migration (gatehouse migrate --config …)`,
      );
      expect(await migrate({ connectionString, tablePrefix: prefix })).toEqual({
        table: `${prefix}records`,
        created: false,
      });
      await store.set('ns', 'a', { v: 1 }, { grantId: 'g' });
      expect((await store.consume('ns', 'a', 'note'))?.note).toBe('note');
      expect(await store.revokeGrant('g')).toEqual([{ namespace: 'ns', id: 'a' }]);
      expect(await store.add('ns', 'b', { v: 2 }, { grantId: 'g' })).toBe(false);
    });

    it('lets several instances migrate at once', async () => {
      const prefix = `test_${randomBytes(5).toString('hex')}_`;
      prefixes.push(prefix);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => migrate({ connectionString, tablePrefix: prefix })),
      );
      expect(results.filter((result) => result.created)).toHaveLength(1);
      await expect(openStore({ tablePrefix: prefix }).ping()).resolves.toBeUndefined();
    });

    it('refuses a table of that name that is not a store table', async () => {
      const prefix = `test_${randomBytes(5).toString('hex')}_`;
      prefixes.push(prefix);
      await admin.query(`CREATE TABLE ${quote(`${prefix}records`)} (id int PRIMARY KEY)`);
      await expect(migrate({ connectionString, tablePrefix: prefix })).rejects.toThrow(
        `table "${prefix}records" exists but is not a Gatehouse store table: it lacks namespace text, id text, value text, expires_at timestamp with time zone, grant_id text, consumed boolean, revision bigint`,
      );
    });

    it('answers ping with StoreUnavailableError until the table exists', async () => {
      const prefix = `test_${randomBytes(5).toString('hex')}_`;
      prefixes.push(prefix);
      const store = openStore({ tablePrefix: prefix });
      const failure = await store.ping().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toContain(`"${prefix}records" does not exist`);
      await migrate({ connectionString, tablePrefix: prefix });
      await expect(store.ping()).resolves.toBeUndefined();
    });

    /** A transaction on `prefix`'s table that has written and not committed: it holds the table's RowExclusiveLock. */
    async function openWriter(prefix: string) {
      const writer = new pg.Client({ connectionString });
      await writer.connect();
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO ${quote(schemaNames(prefix).table)} (namespace, id, value, revision) VALUES ('ns', 'w', '{}', 0)`,
      );
      return {
        commit: async () => {
          await writer.query('COMMIT');
          await writer.end();
        },
      };
    }

    it('takes no lock on an existing table, so a writer in progress does not hold it up', async () => {
      const prefix = await freshPrefix();
      const writer = await openWriter(prefix);
      try {
        const started = performance.now();
        // Were it to wait for the writer's lock, it would fail after the lock timeout instead.
        await expect(
          migrate({ connectionString, tablePrefix: prefix }, { lockTimeoutMs: 2_000 }),
        ).resolves.toEqual({ table: `${prefix}records`, created: false });
        expect(performance.now() - started).toBeLessThan(1_000);
      } finally {
        await writer.commit();
      }
    });

    it('gives up creating a missing index behind a writer after the lock timeout, then creates it', async () => {
      const prefix = await freshPrefix();
      const names = schemaNames(prefix);
      await admin.query(`DROP INDEX ${quote(names.expiryIndex)}`);
      const writer = await openWriter(prefix);
      let failure: unknown;
      const started = performance.now();
      try {
        failure = await migrate(
          { connectionString, tablePrefix: prefix },
          { lockTimeoutMs: 200 },
        ).catch((error: unknown) => error);
      } finally {
        await writer.commit();
      }
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toBe(
        `PostgreSQL store table "${prefix}records" is locked by another session (a long transaction or a VACUUM): its indexes or new columns could not be created within 200 ms; retry the migration`,
      );
      expect((failure as Error).cause).toMatchObject({ code: '55P03' });
      await migrate({ connectionString, tablePrefix: prefix });
      const { rows } = await admin.query('SELECT to_regclass($1) AS found', [
        quote(names.expiryIndex),
      ]);
      expect(rows[0].found).toBe(names.expiryIndex);
    });

    it('validates its options like the store', async () => {
      await expect(migrate({ connectionString, tablePrefix: 'Bad' })).rejects.toBeInstanceOf(
        ConfigError,
      );
      await expect(migrate({ connectionString }, { lockTimeoutMs: 0 })).rejects.toThrow(
        new RangeError('lockTimeoutMs must be a positive integer'),
      );
    });
  });

  describe('failures', () => {
    /** How long a failing call may take beyond the configured timeout on a loaded machine. */
    const SLACK_MS = 1_000;

    async function timed<T>(call: () => Promise<T>) {
      const started = performance.now();
      const error = await call().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      return { error, ms: performance.now() - started };
    }

    it('throws StoreUnavailableError at once when nothing listens', async () => {
      const store = new PostgresStore({
        connectionString: 'postgres://postgres@127.0.0.1:1/test',
        sweepIntervalMs: 0,
      });
      stores.push(store);
      for (const call of [() => store.get('ns', 'a'), () => store.ping()]) {
        const { error, ms } = await timed(call);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).cause).toBeInstanceOf(Error);
        expect(ms).toBeLessThan(SLACK_MS);
      }
    });

    it('gives up on a server that accepts connections but never answers', async () => {
      const silent: Server = createServer((socket: Socket) => socket.on('error', () => {}));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as { port: number };
      try {
        const store = new PostgresStore({
          connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
          statementTimeoutMs: 200,
          sweepIntervalMs: 0,
        });
        stores.push(store);
        const { error, ms } = await timed(() => store.set('ns', 'a', { v: 1 }));
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(ms).toBeGreaterThanOrEqual(150);
        expect(ms).toBeLessThan(200 + SLACK_MS);
      } finally {
        silent.close();
      }
    });

    it('bounds a statement the database does not finish, and keeps the connection', async () => {
      const store = openStore({
        tablePrefix: contractPrefix,
        statementTimeoutMs: 200,
        poolSize: 1,
      });
      const id = randomBytes(8).toString('hex');
      await store.set('ns', id, { v: 1 });
      const { table } = schemaNames(contractPrefix);
      await admin.query('BEGIN');
      try {
        await admin.query(
          `SELECT FROM ${quote(table)} WHERE namespace = 'ns' AND id = $1 FOR UPDATE`,
          [id],
        );
        const { error, ms } = await timed(() => store.consume('ns', id));
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as { cause?: { code?: string } }).cause?.code).toBe('57014');
        expect(ms).toBeLessThan(200 + SLACK_MS);
      } finally {
        await admin.query('ROLLBACK');
      }
      const connect = vi.spyOn(pg.Client.prototype, 'connect');
      expect(await store.consume('ns', id)).toEqual({ value: { v: 1 }, firstUse: true });
      expect(connect).not.toHaveBeenCalled();
    });

    it('gives up on a connection that stops answering, and recovers when the network does', async () => {
      const proxy = await startTcpProxy(postgresAddress());
      try {
        const store = openStore({
          connectionString: proxiedUrl(proxy.port),
          tablePrefix: contractPrefix,
          statementTimeoutMs: 200,
        });
        await store.ping();

        proxy.freeze();
        const frozen = await timed(() => store.get('ns', 'a'));
        expect(frozen.error).toBeInstanceOf(StoreUnavailableError);
        expect(frozen.ms).toBeLessThan(200 + 500 + SLACK_MS);

        proxy.refuse();
        expect((await timed(() => store.ping())).error).toBeInstanceOf(StoreUnavailableError);

        proxy.restore();
        await expect(store.ping()).resolves.toBeUndefined();
      } finally {
        await proxy.close();
      }
    });

    it('turns a connection cut during a statement into StoreUnavailableError', async () => {
      const proxy = await startTcpProxy(postgresAddress());
      const store = openStore({
        connectionString: proxiedUrl(proxy.port),
        tablePrefix: contractPrefix,
      });
      const id = randomBytes(8).toString('hex');
      await store.set('ns', id, { v: 1 });
      const { table } = schemaNames(contractPrefix);
      await admin.query('BEGIN');
      try {
        await admin.query(
          `SELECT FROM ${quote(table)} WHERE namespace = 'ns' AND id = $1 FOR UPDATE`,
          [id],
        );
        const waiting = store.consume('ns', id).catch((error: unknown) => error);
        await new Promise((resolve) => setTimeout(resolve, 100));
        proxy.refuse();
        expect(await waiting).toBeInstanceOf(StoreUnavailableError);
      } finally {
        await admin.query('ROLLBACK');
        await proxy.close();
      }
    });

    it('throws programming errors as they are, never as StoreUnavailableError', async () => {
      const store = openStore({ tablePrefix: contractPrefix });
      await expect(store.set('ns', 'a', undefined)).rejects.toBeInstanceOf(TypeError);
      await expect(store.set('ns', 'a', { v: 1 }, { ttlSeconds: -1 })).rejects.toBeInstanceOf(
        RangeError,
      );
      const outOfRange = await store
        .set('ns', 'a', { v: 1 }, { ttlSeconds: 1e15 })
        .catch((error: unknown) => error);
      expect(outOfRange).toBeInstanceOf(pg.DatabaseError);
      expect(outOfRange).not.toBeInstanceOf(StoreUnavailableError);
      // The connection that raised it is still good.
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('refuses calls once closed, and closes twice without harm', async () => {
      const store = openStore({ tablePrefix: contractPrefix });
      await store.ping();
      await store.close();
      await store.close();
      await expect(store.get('ns', 'a')).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});
