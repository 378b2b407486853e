import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from '../docs/typescript-snippet.js';
import { PostgresPair, postgresBinaries } from '../support/postgres-servers.js';
import { storeAt } from '../support/store-backends.js';
import { FailoverWorld } from './failover-load.js';

/**
 * A PostgreSQL primary and its streaming standby, started here: two servers behind one issuer,
 * on a connection string naming both hosts with `target_session_attrs=read-write`, answer 503
 * (never 500) while the primary is stopped and the standby promoted, lose and revive nothing,
 * and serve again from the new primary without a restart.
 */
describe.skipIf(!postgresBinaries)('a PostgreSQL primary and its streaming standby', () => {
  let pair: PostgresPair;
  let world: FailoverWorld;

  beforeAll(async () => {
    pair = await PostgresPair.start(postgresBinaries as NonNullable<typeof postgresBinaries>);
    world = await FailoverWorld.start(storeAt('PostgreSQL pair', pair.url, 1000));
  }, 60_000);
  afterAll(async () => {
    try {
      await world?.close();
    } finally {
      await pair?.stop();
    }
  });

  it('runs the Failover example of docs/storage-and-keys.md, and prints what it says', async () => {
    const { script, output } = documentedRun('storage-and-keys.md', '### Failover');
    expect(await runSnippet('failover-demo.mts', script, { DATABASE_URL: pair.url })).toBe(output);
  }, 30_000);

  it('redeem no code twice and revive no refresh token while the standby is promoted', async () => {
    await world.expectNothingRevived(
      await world.during(async () => {
        await pair.stopPrimary();
        // Requests meet no primary for a while, as while a failover manager decides.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await pair.promoteStandby();
      }),
    );
  }, 60_000);
});
