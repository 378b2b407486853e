import { RedisStore } from '@gatehouse-oidc/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisBinaries, SentinelGroup } from '../support/redis-servers.js';
import { storeAt } from '../support/store-backends.js';
import {
  expectUnreplicatedWritesRefused,
  FailoverWorld,
  REPLICATED_REDIS_TIMEOUT_MS,
} from './failover-load.js';

/**
 * A Redis primary, its replica and three sentinels, started here: two servers behind one issuer,
 * on the group's `redis+sentinel://` URL, lose and revive nothing when the primary is killed and
 * the sentinels promote the replica, and serve again without a restart.
 */
const startGroup = () => SentinelGroup.start(redisBinaries as NonNullable<typeof redisBinaries>);

describe.skipIf(!redisBinaries)('a Redis Sentinel group of one primary and one replica', () => {
  // The group whose replica the failover promotes has never been frozen: a sentinel that lost
  // sight of a replica may judge it unfit to promote.
  describe('writes held for the replica', () => {
    let group: SentinelGroup;
    beforeAll(async () => {
      group = await startGroup();
    }, 60_000);
    afterAll(() => group?.stop());

    it('reports no write done that no replica holds: with the replica frozen, writes fail', async () => {
      await expectUnreplicatedWritesRefused(
        group.url,
        () => group.freezeReplica(),
        async () => {},
      );
    }, 30_000);

    it('holds the writes that answer in one turn with one WAIT for the replica', async () => {
      const store = new RedisStore({
        url: group.url,
        keyPrefix: 'turn:',
        commandTimeoutMs: 10_000,
      });
      try {
        const primary = await group.primary();
        const waits = async () =>
          Number(
            /cmdstat_wait:calls=(\d+)/.exec(
              await group.cli(primary, 'INFO', 'commandstats'),
            )?.[1] ?? 0,
          );
        await store.set('code', 'first', { v: 1 });
        const before = await waits();
        await Promise.all(
          Array.from({ length: 20 }, (_, index) => store.set('code', `turn-${index}`, { index })),
        );
        expect((await waits()) - before).toBe(1);
      } finally {
        await store.close();
      }
    }, 30_000);
  });

  describe('a failover under load', () => {
    let group: SentinelGroup;
    let world: FailoverWorld;
    beforeAll(async () => {
      group = await startGroup();
      world = await FailoverWorld.start(
        storeAt('Redis Sentinel', group.url, REPLICATED_REDIS_TIMEOUT_MS),
      );
    }, 60_000);
    afterAll(async () => {
      try {
        await world?.close();
      } finally {
        await group?.stop();
      }
    });

    it('redeem no code twice and revive no refresh token while the primary fails over', async () => {
      await world.expectNothingRevived(await world.during(() => group.killPrimary()));
    }, 120_000);
  });
});
