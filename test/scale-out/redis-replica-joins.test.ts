import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer, redisBinaries } from '../support/redis-servers.js';
import { waitFor } from '../support/server-binaries.js';

/**
 * A primary that had no replica gains one, as the old primary rejoins the new one after a
 * failover: from then on the store's writes wait for it, not from a second later. Two servers
 * started here; the replica is made by hand (`REPLICAOF`), so nothing else moves.
 */
describe.skipIf(!redisBinaries)('a replica joining a primary that had none', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  beforeAll(async () => {
    const binaries = redisBinaries as NonNullable<typeof redisBinaries>;
    [primary, replica] = await Promise.all([
      RedisServer.start(binaries),
      RedisServer.start(binaries),
    ]);
    // Redis waits 5 s for more replicas before a diskless sync by default: the replica must be
    // online well within the second a count of replicas could be trusted for.
    await primary.cli('CONFIG', 'SET', 'repl-diskless-sync-delay', '0');
  }, 30_000);
  afterAll(() => Promise.all([primary?.stop(), replica?.stop()]));

  it('is waited for from the first write after it joins', async () => {
    const store = new RedisStore({
      url: primary.url,
      keyPrefix: 'joins:',
      commandTimeoutMs: 400,
      waitForReplicas: 1,
    });
    try {
      // No replica: nothing to wait for, and the primary is counted without one.
      await store.set('code', 'alone', { v: 1 });
      await replica.cli('REPLICAOF', '127.0.0.1', String(primary.port));
      await waitFor('the replica to be online', async () =>
        (await primary.cli('INFO', 'replication')).includes(`port=${replica.port},state=online`),
      );
      const resume = replica.freeze();
      try {
        await expect(store.set('code', 'joined', { v: 1 })).rejects.toThrow(StoreUnavailableError);
      } finally {
        resume();
      }
      // Back, it acknowledges the writes again.
      await waitFor('the write to be acknowledged', async () =>
        store.set('code', 'acknowledged', { v: 1 }).then(
          () => true,
          () => false,
        ),
      );
    } finally {
      await store.close();
    }
  }, 30_000);
});
