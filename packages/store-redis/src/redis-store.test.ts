import { randomBytes } from 'node:crypto';
import { ConfigError, StoreUnavailableError } from '@gatehouse-oidc/core';
import { describeStoreContract, realTime } from '@gatehouse-oidc/core/testing';
import { type Command, Redis, ReplyError } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REDIS, serviceUrl } from '../../../test/support/services.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import type { RedisStoreOptions } from './options.js';
import { RedisStore } from './redis-store.js';
import { CLAIM_GRANT_SCRIPT, REPLACE_SCRIPT, SET_SCRIPT } from './scripts.js';

describe('RedisStore options', () => {
  const url = 'redis://127.0.0.1:6379';
  const TIMEOUT_RANGE = 'must be an integer from 1 to 60000 (milliseconds)';
  const REPLICAS_RANGE = 'must be an integer from 0 to 16';
  const URL_PROBLEM =
    'must be a redis:// or rediss:// URL, redis+cluster://host:port,… (seed nodes) or redis+sentinel://host:port,…/group (sentinels)';
  it.each([
    [{}, 'url', URL_PROBLEM],
    [{ url: 'http://127.0.0.1:6379' }, 'url', URL_PROBLEM],
    [{ url: 'not a url' }, 'url', URL_PROBLEM],
    [{ url: 'redis+cluster://127.0.0.1:7000,:7001' }, 'url', URL_PROBLEM],
    [{ url: 'redis+sentinel://127.0.0.1:26379' }, 'url', URL_PROBLEM],
    [{ url, keyPrefix: '' }, 'keyPrefix', 'must be a non-empty string'],
    [{ url, keyPrefix: 'app{1}:' }, 'keyPrefix', 'must not contain { or }'],
    [{ url, commandTimeoutMs: 0 }, 'commandTimeoutMs', TIMEOUT_RANGE],
    [{ url, commandTimeoutMs: 1.5 }, 'commandTimeoutMs', TIMEOUT_RANGE],
    [{ url, commandTimeoutMs: '1000' }, 'commandTimeoutMs', TIMEOUT_RANGE],
    [
      { url, commandTimeout: 1000 },
      'commandTimeout',
      'unknown option (known: url, keyPrefix, commandTimeoutMs, waitForReplicas)',
    ],
    [{ url, waitForReplicas: -1 }, 'waitForReplicas', REPLICAS_RANGE],
    [{ url, waitForReplicas: 1.5 }, 'waitForReplicas', REPLICAS_RANGE],
    [{ url, waitForReplicas: '1' }, 'waitForReplicas', REPLICAS_RANGE],
    [{ url, waitForReplicas: 17 }, 'waitForReplicas', REPLICAS_RANGE],
  ])('refuses %o', (options, path, message) => {
    expect(() => new RedisStore(options as RedisStoreOptions)).toThrow(
      new ConfigError([{ path, message }]),
    );
  });

  it('names every invalid option at once, and never repeats a password', () => {
    const refusal = () =>
      new RedisStore({ url: 'redis://:s3cret-pw@', keyPrefix: '', commandTimeoutMs: -1 });
    expect(refusal).toThrow(ConfigError);
    expect(refusal).toThrow(
      [
        'invalid configuration:',
        `url: ${URL_PROBLEM}`,
        'keyPrefix: must be a non-empty string',
        `commandTimeoutMs: ${TIMEOUT_RANGE}`,
      ].join('\n'),
    );
  });
});

const url = await serviceUrl(REDIS);
const redisUrl = url ?? '';

/** A call's outcome and how long it took, in milliseconds. */
async function timed(call: () => Promise<unknown>) {
  const started = performance.now();
  const outcome = await call().then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  return { ...outcome, ms: performance.now() - started };
}

/** Retries `call` until it resolves: how tests wait for the client to reconnect by itself. */
async function eventually<T>(call: () => Promise<T>, withinMs = 5_000): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe.skipIf(!url)('RedisStore', () => {
  /** Every key of this run starts with it; they are deleted at the end. */
  const runPrefix = `gatehouse-test:${randomBytes(6).toString('hex')}:`;
  const stores: RedisStore[] = [];
  const proxies: TcpProxy[] = [];
  let admin: Redis;

  function openStore(options: Partial<RedisStoreOptions> = {}): RedisStore {
    const store = new RedisStore({ url: redisUrl, keyPrefix: runPrefix, ...options });
    stores.push(store);
    return store;
  }

  /** A store reaching Redis through a proxy the test can freeze or cut. */
  async function proxiedStore(commandTimeoutMs: number) {
    const proxied = new URL(redisUrl);
    const proxy = await startTcpProxy({
      host: proxied.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(proxied.port || REDIS.defaultPort),
    });
    proxies.push(proxy);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const store = openStore({ url: proxied.href, commandTimeoutMs });
    return { store, proxy };
  }

  beforeAll(() => {
    admin = new Redis(redisUrl);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  afterAll(async () => {
    const keys = await admin.keys(`${runPrefix}*`);
    if (keys.length > 0) await admin.unlink(...keys);
    await admin.quit();
  });

  describeStoreContract(
    'Redis',
    async () => openStore(),
    () => realTime(),
  );

  describe('key layout', () => {
    it('keeps a record as one hash under the prefix, with native expiry, and indexes its grant', async () => {
      const store = openStore();
      await store.set('access_token', 'demo/abc', { v: 1 }, { ttlSeconds: 60, grantId: 'g-1' });
      const record = `${runPrefix}r:access_token:demo/abc`;
      expect(await admin.hgetall(record)).toEqual({
        v: '{"v":1}',
        r: expect.stringMatching(/^\d+$/),
        g: 'g-1',
      });
      expect(await admin.pttl(record)).toBeGreaterThan(59_000);
      expect(await admin.pttl(record)).toBeLessThanOrEqual(60_000);
      // The index entry outlives the record by the clock margin between Cluster nodes.
      const [seconds, micros] = await admin.time();
      const now = Number(seconds) * 1000 + Number(micros) / 1000;
      const score = Number(
        await admin.zscore(`${runPrefix}{g:g-1}:index`, 'access_token:demo/abc'),
      );
      expect(score - now).toBeGreaterThan(119_000);
      expect(score - now).toBeLessThanOrEqual(120_000);

      await store.consume('access_token', 'demo/abc');
      expect(await admin.hget(record, 'u')).toBe('1');
      expect(await admin.pttl(record)).toBeGreaterThan(59_000);
    });

    it("raises a record's score in its grant's index when replace restarts its expiry", async () => {
      const store = openStore();
      const index = `${runPrefix}{g:g-renewed}:index`;
      await store.set('session', 'demo/s1', { v: 1 }, { ttlSeconds: 60, grantId: 'g-renewed' });
      const first = Number(await admin.zscore(index, 'session:demo/s1'));
      const read = await store.read('session', 'demo/s1');
      expect(
        await store.replace(
          'session',
          'demo/s1',
          read?.revision ?? -1,
          { v: 2 },
          { ttlSeconds: 3600 },
        ),
      ).toBe(true);
      // Listed as long as the record lives, and the index with it.
      const raised = Number(await admin.zscore(index, 'session:demo/s1'));
      expect(raised - first).toBeGreaterThan(3_500_000);
      expect(await admin.pttl(index)).toBeGreaterThan(3_600_000);
      // Without a new expiry the score stays.
      const again = await store.read('session', 'demo/s1');
      expect(await store.replace('session', 'demo/s1', again?.revision ?? -1, { v: 3 })).toBe(true);
      expect(Number(await admin.zscore(index, 'session:demo/s1'))).toBe(raised);
      expect(await store.listGrant('g-renewed')).toEqual([{ namespace: 'session', id: 'demo/s1' }]);
    });

    it('encodes the namespace, so that a colon in it or in the id cannot mix records up', async () => {
      const store = openStore();
      await store.set('a:b', 'c', { n: 1 }, { grantId: 'g-colon' });
      await store.set('a', 'b:c', { n: 2 }, { grantId: 'g-colon' });
      expect(await admin.hget(`${runPrefix}r:a%3Ab:c`, 'v')).toBe('{"n":1}');
      expect(await admin.hget(`${runPrefix}r:a:b:c`, 'v')).toBe('{"n":2}');
      const listed = await store.listGrant('g-colon');
      expect(listed.sort((x, y) => x.namespace.localeCompare(y.namespace))).toEqual([
        { namespace: 'a', id: 'b:c' },
        { namespace: 'a:b', id: 'c' },
      ]);
    });

    it('takes a record a cap dropped out of its other caps, so a one-record cap set goes with it', async () => {
      const store = openStore();
      const realmCap = { key: 'interaction/demo/pending', max: 2 };
      const browserCap = (n: number) => ({ key: `interaction/demo/browser/b${n}`, max: 20 });
      for (const n of [1, 2, 3, 4]) {
        await store.setCapped(
          'interaction',
          `demo/i${n}`,
          { n },
          {
            ttlSeconds: 120,
            caps: [realmCap, browserCap(n)],
          },
        );
      }
      const capSet = (key: string) => `${runPrefix}{c:${key}}:members`;
      expect(await admin.zrange(capSet(realmCap.key), '0', '-1')).toEqual([
        'interaction:demo/i3',
        'interaction:demo/i4',
      ]);
      // The browsers of the two dropped records keep no set; those of the live ones do.
      expect(
        await Promise.all([1, 2, 3, 4].map((n) => admin.exists(capSet(browserCap(n).key)))),
      ).toEqual([0, 0, 1, 1]);
      expect(store.metrics().evicted).toBe(2);
    });

    it('keeps a grant index as long as its longest-lived member, for ever with one without TTL', async () => {
      const store = openStore();
      const index = `${runPrefix}{g:g-ttl}:index`;
      await store.set('ns', 'long', {}, { ttlSeconds: 100, grantId: 'g-ttl' });
      await store.set('ns', 'short', {}, { ttlSeconds: 10, grantId: 'g-ttl' });
      expect(await admin.pttl(index)).toBeGreaterThan(100_000);
      await store.set('ns', 'forever', {}, { grantId: 'g-ttl' });
      expect(await admin.pttl(index)).toBe(-1);
      await store.set('ns', 'short-again', {}, { ttlSeconds: 10, grantId: 'g-ttl' });
      expect(await admin.pttl(index)).toBe(-1);
    });

    it('indexes the records a grant gets at once together, each with its score, never lowered', async () => {
      const store = openStore();
      const index = `${runPrefix}{g:g-batch}:index`;
      await Promise.all([
        store.add('ns', 'ten', {}, { ttlSeconds: 10, grantId: 'g-batch' }),
        store.set('ns', 'forever', {}, { grantId: 'g-batch' }),
        store.set('ns', 'hundred', {}, { ttlSeconds: 100, grantId: 'g-batch' }),
      ]);
      const scores = async () =>
        Object.fromEntries(
          await Promise.all(
            ['ten', 'forever', 'hundred'].map(async (id) => [
              id,
              await admin.zscore(index, `ns:${id}`),
            ]),
          ),
        );
      const first = await scores();
      expect(first.forever).toBe('inf');
      expect(Number(first.hundred) - Number(first.ten)).toBeGreaterThanOrEqual(90_000);
      await Promise.all([
        store.set('ns', 'hundred', {}, { ttlSeconds: 1, grantId: 'g-batch' }),
        store.set('ns', 'forever', {}, { ttlSeconds: 1, grantId: 'g-batch' }),
      ]);
      expect(await scores()).toEqual(first);

      // A closed grant keeps none of them.
      await store.revokeGrant('g-batch');
      await Promise.all([
        store.add('ns', 'late-1', {}, { ttlSeconds: 10, grantId: 'g-batch' }),
        store.set('ns', 'late-2', {}, { grantId: 'g-batch' }),
      ]);
      expect(await store.get('ns', 'late-1')).toBeUndefined();
      expect(await store.get('ns', 'late-2')).toBeUndefined();
    });

    it('drops the members of a grant index that are past their expiry when the grant is written', async () => {
      const store = openStore();
      const index = `${runPrefix}{g:g-prune}:index`;
      const [seconds] = await admin.time();
      await admin.zadd(index, Number(seconds) * 1000 - 1000, 'ns:gone');
      await store.set('ns', 'new', {}, { ttlSeconds: 60, grantId: 'g-prune' });
      expect(await admin.zrange(index, 0, '-1')).toEqual(['ns:new']);
    });

    it('finishes a revocation that failed half-way when revokeGrant is called again', async () => {
      const store = openStore();
      const index = `${runPrefix}{g:g-half}:index`;
      const revoking = `${runPrefix}{g:g-half}:revoking`;
      await store.set('at', 'x', { v: 1 }, { ttlSeconds: 60, grantId: 'g-half' });
      await store.set('rt', 'y', { v: 2 }, { grantId: 'g-half' });
      // What a revokeGrant whose connection died after its first step leaves behind.
      const closed = `${runPrefix}{g:g-half}:closed`;
      expect(
        await admin.eval(CLAIM_GRANT_SCRIPT, 3, index, revoking, closed, '600000'),
      ).toHaveLength(2);
      expect(await admin.exists(index)).toBe(0);
      expect(await admin.pttl(revoking)).toBe(-1); // it holds a record without expiry

      expect(await store.listGrant('g-half')).toHaveLength(2);
      // The grant is closed already: a new record is not kept.
      await store.set('at', 'z', { v: 3 }, { ttlSeconds: 60, grantId: 'g-half' });
      expect(await store.get('at', 'z')).toBeUndefined();
      expect((await store.revokeGrant('g-half')).map((key) => key.id).sort()).toEqual(['x', 'y']);
      expect(await store.get('rt', 'y')).toBeUndefined();
      expect(await admin.exists(index, revoking)).toBe(0);
      const closedFor = await admin.pttl(closed);
      expect(closedFor).toBeGreaterThan(590_000);
      expect(closedFor).toBeLessThanOrEqual(600_000);
    });

    it('clears the revoking set only once every record of the revocation is deleted', async () => {
      const store = openStore();
      await store.set('at', 'p', { v: 1 }, { ttlSeconds: 60, grantId: 'g-order' });
      await store.set('rt', 'q', { v: 2 }, { grantId: 'g-order' });
      // What reaches the connection, and when each record deletion (a NOSCRIPT retry included)
      // answers: the ZREM must not leave before them.
      const events: string[] = [];
      const sendCommand = Redis.prototype.sendCommand;
      vi.spyOn(Redis.prototype, 'sendCommand').mockImplementation(function (
        this: Redis,
        command: Command,
        ...rest: unknown[]
      ) {
        const deletes = command.args.some((arg) => String(arg).startsWith(`${runPrefix}r:`));
        if (deletes) void command.promise.then(() => events.push('deleted'));
        if (command.name === 'zrem') events.push('zrem sent');
        return (sendCommand as (...args: unknown[]) => unknown).call(this, command, ...rest);
      });
      expect(await store.revokeGrant('g-order')).toHaveLength(2);
      expect(events).toEqual(['deleted', 'deleted', 'zrem sent']);
      expect(await admin.exists(`${runPrefix}{g:g-order}:revoking`)).toBe(0);
    });

    it('never keeps the revision a write replaces, even when the random one repeats it', async () => {
      const key = `${runPrefix}r:ns:collide`;
      const revision = () => admin.hget(key, 'r');
      await admin.eval(SET_SCRIPT, 1, key, '{}', '7', '');
      expect(await revision()).toBe('7');
      await admin.eval(SET_SCRIPT, 1, key, '{}', '7', '');
      expect(await revision()).toBe('8');
      await admin.eval(REPLACE_SCRIPT, 1, key, '{}', '8', '8', '');
      expect(await revision()).toBe('9');
      await admin.eval(SET_SCRIPT, 1, key, '{}', '9007199254740991', '');
      await admin.eval(SET_SCRIPT, 1, key, '{}', '9007199254740991', '');
      expect(await revision()).toBe('1');
    });
  });

  describe('commands', () => {
    /**
     * What Redis receives from the store, seen through MONITOR: for each call, the commands the
     * store sent and the keys each declares. MONITOR also shows the commands scripts run (source
     * `lua`): each must touch only the key its script declared, or Redis Cluster could not run it.
     */
    async function observe(
      calls: Record<string, (store: RedisStore) => Promise<unknown>>,
      prepare: (store: RedisStore) => Promise<unknown> = (store) => store.ping(),
    ) {
      const store = openStore();
      await prepare(store);
      const monitor = await admin.duplicate().monitor();
      const seen: Array<{ args: string[]; fromScript: boolean }> = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (args.some((arg) => arg.includes(runPrefix)))
          seen.push({ args, fromScript: source === 'lua' });
      });
      const observed: Record<string, { commands: string[]; keys: string[][] }> = {};
      try {
        for (const [name, call] of Object.entries(calls)) {
          await call(store);
          // A marker read through the store: once MONITOR shows it, the call's commands are in.
          const marker = randomBytes(4).toString('hex');
          await store.get('marker', marker);
          await eventually(async () => {
            if (!seen.some(({ args }) => args.some((arg) => arg.endsWith(`marker:${marker}`))))
              throw new Error('marker not seen yet');
          });
          const entries = seen.splice(0).slice(0, -1);
          let scriptKeys: string[] = [];
          const sent: string[][] = [];
          for (const { args, fromScript } of entries) {
            const touched = args.filter((arg) => arg.startsWith(runPrefix));
            if (fromScript) {
              for (const key of touched) expect(scriptKeys).toContain(key);
              continue;
            }
            sent.push(args);
            scriptKeys = declaredKeys(args);
            // No key travels in ARGV, where Cluster could not route it, and the keys of one
            // command share a slot.
            expect(touched).toEqual(scriptKeys);
            expect(new Set(scriptKeys.map(keySlot)).size).toBe(1);
          }
          observed[name] = {
            commands: sent.map(([command]) => (command ?? '').toLowerCase()),
            keys: sent.map(declaredKeys),
          };
        }
      } finally {
        monitor.disconnect();
      }
      return observed;
    }

    /** The keys a command declares: after the key count for EVAL/EVALSHA/ZUNION, else the first argument. */
    function declaredKeys(args: string[]): string[] {
      const command = (args[0] ?? '').toLowerCase();
      if (command === 'eval' || command === 'evalsha')
        return args.slice(3, 3 + Number(args[2] ?? 0));
      if (command === 'zunion') return args.slice(2, 2 + Number(args[1] ?? 0));
      return args.slice(1, 2);
    }

    it('sends each call as one round trip of single-slot commands, grant listings as two or three', async () => {
      const id = randomBytes(4).toString('hex');
      const observed = await observe(
        {
          'set (client_credentials)': (store) => store.set('at', id, { v: 1 }, { ttlSeconds: 60 }),
          'set with a grant': (store) =>
            store.set('rt', id, { v: 1 }, { ttlSeconds: 60, grantId: `g${id}` }),
          'set with a closed grant': (store) =>
            store.set('rt', `${id}-closed`, { v: 1 }, { grantId: `closed${id}` }),
          'add and set with one grant at once (a token response)': (store) =>
            Promise.all([
              store.add('at', `${id}-both`, { v: 1 }, { ttlSeconds: 60, grantId: `both${id}` }),
              store.set('rt', `${id}-both`, { v: 1 }, { grantId: `both${id}` }),
            ]),
          get: (store) => store.get('at', id),
          add: (store) => store.add('jti', id, {}, { ttlSeconds: 60 }),
          consume: (store) => store.consume('rt', id),
          read: (store) => store.read('rt', id),
          replace: (store) => store.replace('rt', id, 1, { v: 2 }),
          delete: (store) => store.delete('at', id),
          listGrant: (store) => store.listGrant(`g${id}`),
          revokeGrant: (store) => store.revokeGrant(`g${id}`),
        },
        (store) => store.revokeGrant(`closed${id}`),
      );
      // ioredis sends EVAL the first time on a connection, EVALSHA after.
      const script = expect.stringMatching(/^eval(sha)?$/);
      const index = `${runPrefix}{g:g${id}}:index`;
      const revoking = `${runPrefix}{g:g${id}}:revoking`;
      const closed = `${runPrefix}{g:g${id}}:closed`;
      const closedGrant = (part: string) => `${runPrefix}{g:closed${id}}:${part}`;
      expect(observed).toEqual({
        'set (client_credentials)': { commands: [script], keys: [[`${runPrefix}r:at:${id}`]] },
        'set with a grant': {
          commands: [script, script],
          keys: [[`${runPrefix}r:rt:${id}`], [index, closed]],
        },
        'set with a closed grant': {
          commands: [script, script, script],
          keys: [
            [`${runPrefix}r:rt:${id}-closed`],
            [closedGrant('index'), closedGrant('closed')],
            [`${runPrefix}r:rt:${id}-closed`],
          ],
        },
        // The two members go into the index in one script call, after both records.
        'add and set with one grant at once (a token response)': {
          commands: [script, script, script],
          keys: [
            [`${runPrefix}r:at:${id}-both`],
            [`${runPrefix}r:rt:${id}-both`],
            [`${runPrefix}{g:both${id}}:index`, `${runPrefix}{g:both${id}}:closed`],
          ],
        },
        get: { commands: ['hget'], keys: [[`${runPrefix}r:at:${id}`]] },
        add: { commands: [script], keys: [[`${runPrefix}r:jti:${id}`]] },
        consume: { commands: [script], keys: [[`${runPrefix}r:rt:${id}`]] },
        read: { commands: ['hmget'], keys: [[`${runPrefix}r:rt:${id}`]] },
        replace: { commands: [script], keys: [[`${runPrefix}r:rt:${id}`]] },
        delete: { commands: ['del'], keys: [[`${runPrefix}r:at:${id}`]] },
        listGrant: {
          commands: ['zunion', 'hget'],
          keys: [[index, revoking], [`${runPrefix}r:rt:${id}`]],
        },
        revokeGrant: {
          commands: [script, script, 'zrem'],
          keys: [[index, revoking, closed], [`${runPrefix}r:rt:${id}`], [revoking]],
        },
      });
    });
  });

  describe('failures', () => {
    it('fails every call within the timeout when nothing listens, with the cause', async () => {
      const store = openStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });
      const calls: Array<() => Promise<unknown>> = [
        () => store.get('ns', 'a'),
        () => store.set('ns', 'a', {}, { grantId: 'g' }),
        () => store.add('ns', 'a', {}),
        () => store.consume('ns', 'a'),
        () => store.read('ns', 'a'),
        () => store.replace('ns', 'a', 1, {}),
        () => store.delete('ns', 'a'),
        () => store.listGrant('g'),
        () => store.revokeGrant('g'),
        () => store.ping(),
      ];
      const outcomes = await Promise.all(calls.map(timed));
      for (const { error, ms } of outcomes) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toBe('no connection to Redis within 200 ms');
        expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
        expect(ms).toBeLessThan(1_000);
      }
      const closing = await timed(() => store.close());
      expect(closing.error).toBeUndefined();
      expect(closing.ms).toBeLessThan(500);
    });

    it('fails a call Redis does not answer within the timeout, then reconnects by itself', async () => {
      const { store, proxy } = await proxiedStore(300);
      await store.set('ns', 'hung', { v: 1 });
      proxy.freeze();
      const hung = await timed(() => store.get('ns', 'hung'));
      expect(hung.error).toBeInstanceOf(StoreUnavailableError);
      expect((hung.error as Error).message).toBe('Redis did not answer within 300 ms');
      expect(hung.ms).toBeLessThan(1_000);
      proxy.restore();
      expect(await eventually(() => store.get('ns', 'hung'))).toEqual({ v: 1 });
    });

    it('answers at once while Redis is down, and recovers by itself when it is back', async () => {
      const { store, proxy } = await proxiedStore(300);
      await store.set('ns', 'down', { v: 1 });
      proxy.refuse();
      const down = await timed(() => store.get('ns', 'down'));
      expect(down.error).toBeInstanceOf(StoreUnavailableError);
      expect(down.ms).toBeLessThan(1_000);
      proxy.restore();
      expect(await eventually(() => store.get('ns', 'down'))).toEqual({ v: 1 });
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('rides out a dropped connection: a call made meanwhile waits for the reconnection', async () => {
      const { store, proxy } = await proxiedStore(2_000);
      await store.set('ns', 'blip', { v: 1 });
      proxy.refuse();
      proxy.restore();
      await new Promise((resolve) => setTimeout(resolve, 10)); // let the client see the close
      expect(await store.get('ns', 'blip')).toEqual({ v: 1 });
    });

    it('waits for no replica where the primary has none connected (test/scale-out waits for one)', async () => {
      const store = openStore({ waitForReplicas: 1 });
      const calls = async (command: string) =>
        Number(
          new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(
            await admin.info('commandstats'),
          )?.[1] ?? 0,
        );
      const [waits, roles] = [await calls('wait'), await calls('role')];
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => store.set('ns', `alone-${index}`, { index })),
      );
      expect(await store.consume('ns', 'alone-0')).toMatchObject({ firstUse: true });
      expect(await calls('wait')).toBe(waits);
      // Counted again for every turn's writes (a replica may join at any moment), not per write:
      // the twenty answer in one or two turns, the consume in one more.
      expect(await calls('role')).toBeGreaterThanOrEqual(roles + 2);
      expect(await calls('role')).toBeLessThanOrEqual(roles + 3);
    });

    it('throws a reply saying the command is wrong as it is, not as StoreUnavailableError', async () => {
      const store = openStore();
      // A plain string where the store keeps a hash, as a bug or a foreign writer would leave it.
      await admin.set(`${runPrefix}r:ns:wrongtype`, 'plain');
      for (const call of [
        () => store.get('ns', 'wrongtype'),
        () => store.consume('ns', 'wrongtype'),
      ]) {
        const error = await call().catch((failure: unknown) => failure);
        expect(error).not.toBeInstanceOf(StoreUnavailableError);
        expect(error).toBeInstanceOf(ReplyError);
        expect((error as Error).message).toMatch(/^WRONGTYPE /);
      }
    });

    it.each([
      ['LOADING', 'LOADING Redis is loading the dataset in memory'],
      [
        'BUSY',
        'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      ],
      ['OOM', "OOM command not allowed when used memory > 'maxmemory'."],
      ['READONLY', "READONLY You can't write against a read only replica."],
      ['NOAUTH', 'NOAUTH Authentication required.'],
    ])('turns a %s reply into StoreUnavailableError naming it', async (code, reply) => {
      const store = openStore();
      await store.ping();
      const failure = new ReplyError(reply);
      vi.spyOn(Redis.prototype, 'hget').mockRejectedValueOnce(failure);
      const error = await store.get('ns', 'a').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toBe(`Redis is unavailable: it answered ${code}`);
      expect((error as Error).cause).toBe(failure);
    });

    it('throws a NOPERM reply as it is', async () => {
      const store = openStore();
      await store.ping();
      const failure = new ReplyError(
        "NOPERM User gatehouse has no permissions to run the 'hget' command",
      );
      vi.spyOn(Redis.prototype, 'hget').mockRejectedValueOnce(failure);
      await expect(store.get('ns', 'a')).rejects.toBe(failure);
    });

    it('refuses calls once closed', async () => {
      const store = openStore();
      await store.ping();
      await store.close();
      await expect(store.get('ns', 'a')).rejects.toThrow(
        new StoreUnavailableError('the Redis store is closed'),
      );
    });
  });
});

/** The Redis Cluster slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key. */
function keySlot(key: string): number {
  let bytes = Buffer.from(key);
  const open = bytes.indexOf('{');
  const close = open === -1 ? -1 : bytes.indexOf('}', open + 1);
  if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('keySlot (the test helper)', () => {
  it('agrees with CLUSTER KEYSLOT', () => {
    // Values from the Cluster specification and from CLUSTER KEYSLOT on Redis 7.0.
    expect(keySlot('123456789')).toBe(0x31c3 % 16384);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('foo{}{bar}')).toBe(8363);
    expect(keySlot('foo{{bar}}zap')).toBe(4015);
    expect(keySlot('gatehouse:{g:abc}:index')).toBe(10140);
    expect(keySlot('gatehouse:{g:abc}:revoking')).toBe(10140);
    expect(keySlot('gatehouse:r:access_token:demo/abc')).toBe(9907);
  });
});
