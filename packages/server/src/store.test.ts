import { MemoryStore, StoreUnavailableError } from '@gatehouse-oidc/core';
import { PostgresStore } from '@gatehouse-oidc/store-postgres';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { describe, expect, it } from 'vitest';
import { createStore, describeStore, parseStoreValue, storeErrorMessage } from './store.js';

describe('store values', () => {
  it.each([
    ['memory', 'memory'],
    ['postgres://db/auth', 'postgres'],
    ['postgresql:///auth', 'postgres'],
    ['redis://cache', 'redis'],
    ['rediss://:pw@cache:6380/1', 'redis'],
    ['redis+cluster://10.0.0.1:7000,10.0.0.2:7000', 'redis'],
    ['rediss+sentinel://:pw@s1:26379,s2:26379/main', 'redis'],
    ['postgres://db-1:5432,db-2:5432/auth?target_session_attrs=read-write', 'postgres'],
  ])('%s names the %s store', (value, kind) => {
    expect(parseStoreValue(value)).toEqual({ kind });
  });

  it.each([
    ['Memory', 'must be "memory", a postgres:// URL or a redis:// URL'],
    ['mysql://db', 'must be "memory", a postgres:// URL or a redis:// URL'],
    ['db:5432', 'must be "memory", a postgres:// URL or a redis:// URL'],
    ['redis://:secret@', 'must be "memory", a postgres:// URL or a redis:// URL'],
    ['redis://', 'a redis:// URL must name a host'],
    ['redis+cluster://a:7000,,b:7000', 'a redis+cluster:// URL must list host:port nodes'],
    [
      'redis+sentinel://s1:26379,s2:26379',
      'a redis+sentinel:// URL must list host:port nodes and name the group (/group)',
    ],
  ])('refuses %j', (value, problem) => {
    expect(parseStoreValue(value)).toEqual({ problem });
  });

  it.each([
    ['memory', 'memory (this process only)'],
    [
      'postgres://gatehouse:s3cret@db.internal:5432/auth?sslmode=require&password=s3cret',
      'PostgreSQL at db.internal:5432/auth',
    ],
    ['postgresql:///auth', 'PostgreSQL at /auth'],
    ['redis://default:s3cret@cache.internal:6379/2', 'Redis at cache.internal:6379/2'],
    ['rediss://cache.internal', 'Redis at cache.internal'],
    ['redis+cluster://:s3cret@c1:7000,c2:7000', 'Redis Cluster at c1:7000,c2:7000'],
    ['redis+sentinel://s1:26379,s2:26379/main', 'Redis Sentinel at s1:26379,s2:26379/main'],
    [
      'postgres://gatehouse:s3cret@db-1:5432,db-2:5432/auth?target_session_attrs=read-write',
      'PostgreSQL at db-1:5432,db-2:5432/auth',
    ],
  ])('describes %s without its credentials', (value, description) => {
    expect(describeStore(value)).toBe(description);
  });
});

describe('storeErrorMessage', () => {
  const url = 'postgres://gatehouse:p%40ss-word@db.internal/auth';

  it('takes the URL and its password, encoded or not, out of a message', () => {
    const error = new StoreUnavailableError(`cannot reach ${url}: bad password p@ss-word`);
    expect(storeErrorMessage(error, url)).toBe('cannot reach ***: bad password ***');
  });

  it('finds the password of a URL naming several hosts', () => {
    const cluster = 'redis+cluster://app:p%40ss@c1:7000,c2:7000';
    expect(storeErrorMessage(new Error('AUTH p@ss refused at c1:7000'), cluster)).toBe(
      'AUTH *** refused at c1:7000',
    );
  });

  it('leaves other messages as they are', () => {
    expect(storeErrorMessage(new Error('connect ECONNREFUSED 10.0.0.1:5432'), url)).toBe(
      'connect ECONNREFUSED 10.0.0.1:5432',
    );
    expect(storeErrorMessage('odd', 'memory')).toBe('odd');
  });
});

describe('createStore', () => {
  const settings = { migrate_on_start: false };

  it('opens the store the config names, without connecting yet', async () => {
    const memory = createStore({ store: 'memory', store_options: settings });
    expect(memory).toBeInstanceOf(MemoryStore);
    const postgres = createStore({
      store: 'postgres://127.0.0.1:1/auth',
      store_options: { ...settings, table_prefix: 'idp_', pool_size: 2, timeout_ms: 100 },
    });
    expect(postgres).toBeInstanceOf(PostgresStore);
    // Nothing listens there: the store's own bound turns that into StoreUnavailableError.
    await expect(postgres.ping()).rejects.toThrow(StoreUnavailableError);
    const redis = createStore({
      store: 'redis://127.0.0.1:1',
      store_options: { ...settings, key_prefix: 'idp:', timeout_ms: 100, wait_for_replicas: 0 },
    });
    expect(redis).toBeInstanceOf(RedisStore);
    await expect(redis.ping()).rejects.toThrow(StoreUnavailableError);
    await Promise.all([memory.close(), postgres.close(), redis.close()]);
  });

  it('gives the memory store the ceiling of max_bytes', async () => {
    const memory = createStore({
      store: 'memory',
      store_options: { ...settings, max_bytes: 1024 * 1024 },
    });
    await memory.set('note', 'small', { text: 'x'.repeat(1000) });
    await expect(memory.set('note', 'large', { text: 'x'.repeat(1024 * 1024) })).rejects.toThrow(
      StoreUnavailableError,
    );
    await memory.close();
  });
});
