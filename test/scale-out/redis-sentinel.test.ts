import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisBinaries, SentinelGroup } from '../support/redis-servers.js';
import { storeAt } from '../support/store-backends.js';
import { FailoverWorld } from './failover-load.js';

/**
 * A Redis primary, its replica and three sentinels, started here: two servers behind one issuer,
 * on the group's `redis+sentinel://` URL, lose and revive nothing when the primary is killed and
 * the sentinels promote the replica, and serve again without a restart.
 */
describe.skipIf(!redisBinaries)('a Redis Sentinel group of one primary and one replica', () => {
  let group: SentinelGroup;
  let world: FailoverWorld;

  beforeAll(async () => {
    group = await SentinelGroup.start(redisBinaries as NonNullable<typeof redisBinaries>);
    world = await FailoverWorld.start(storeAt('Redis Sentinel', group.url, 1000));
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
  }, 60_000);
});
