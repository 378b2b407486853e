import { describeStoreContract, realTime } from '@gatehouse-oidc/core/testing';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from '../docs/typescript-snippet.js';
import { RedisCluster, redisBinaries } from '../support/redis-servers.js';
import { storeAt } from '../support/store-backends.js';
import {
  expectUnreplicatedWritesRefused,
  FailoverWorld,
  REPLICATED_REDIS_TIMEOUT_MS,
} from './failover-load.js';

/**
 * A Redis Cluster of three primaries and three replicas, started here: the Store contract holds
 * on it, and two servers behind one issuer lose and revive nothing while slots move and
 * primaries fail over under them.
 */
describe.skipIf(!redisBinaries)('a Redis Cluster of three primaries and three replicas', () => {
  let cluster: RedisCluster;

  beforeAll(async () => {
    cluster = await RedisCluster.start(redisBinaries as NonNullable<typeof redisBinaries>);
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('runs the Cluster example of docs/storage-and-keys.md, and prints what it says', async () => {
    const { script, output } = documentedRun('storage-and-keys.md', '### Redis Cluster');
    expect(await runSnippet('cluster-demo.mts', script, { REDIS_CLUSTER_URL: cluster.url })).toBe(
      output,
    );
  }, 30_000);

  describeStoreContract(
    'RedisStore on a Redis Cluster',
    async () => new RedisStore({ url: cluster.url, keyPrefix: 'contract:' }),
    () => realTime(),
  );

  it('reports no write done that no replica holds: with the replicas frozen, writes fail', async () => {
    await expectUnreplicatedWritesRefused(
      cluster.url,
      () => cluster.freezeReplicas(),
      () => cluster.settled(),
    );
  }, 30_000);

  describe('two servers, one issuer, under load', () => {
    let world: FailoverWorld;

    beforeAll(async () => {
      world = await FailoverWorld.start(
        storeAt('Redis Cluster', cluster.url, REPLICATED_REDIS_TIMEOUT_MS),
      );
    }, 30_000);
    afterAll(() => world?.close());

    it('redeem no code twice and revive no refresh token while slots migrate', async () => {
      await world.expectNothingRevived(await world.during(() => cluster.migrateSlots(2000)));
    }, 60_000);

    it('... while a replica takes over with CLUSTER FAILOVER', async () => {
      await world.expectNothingRevived(await world.during(() => cluster.manualFailover()));
    }, 60_000);

    it('... while a primary is killed and its replica takes over', async () => {
      await world.expectNothingRevived(await world.during(() => cluster.killPrimary()));
    }, 60_000);
  });
});
