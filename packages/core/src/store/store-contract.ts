import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock } from '../../../../test/support/fixtures.js';
import type { Store } from './store.js';

/**
 * How the contract suite lets time pass for a store. Stores that take a clock get `now` and the
 * suite moves it instantly (`fakeTime`); stores on the server's clock (PostgreSQL, Redis) use
 * `realTime` with a TTL short enough for the suite to sleep through.
 */
export interface ContractTime {
  /** Milliseconds since the epoch; hand it to the store if it accepts a clock. */
  readonly now: () => number;
  /** Lets `seconds` pass for the store. */
  advance(seconds: number): Promise<void>;
  /** The TTL the expiry tests write records with. */
  readonly ttlSeconds: number;
}

export function fakeTime(ttlSeconds = 60): ContractTime {
  const clock = fakeClock();
  return { now: clock.now, advance: async (seconds) => clock.advance(seconds), ttlSeconds };
}

export function realTime(ttlSeconds = 1): ContractTime {
  return {
    now: Date.now,
    advance: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
    ttlSeconds,
  };
}

const CONCURRENT_CALLERS = 50;
const NS = 'contract_record';
const OTHER_NS = 'contract_other';

/**
 * The behaviour every `Store` implementation must have, written against the interface only, so
 * the same suite runs unchanged for the memory, PostgreSQL and Redis stores. `makeStore` gets a
 * fresh, empty store per test; ids are unique per run, so a shared database needs no cleanup.
 */
export function describeStoreContract(
  name: string,
  makeStore: (now: () => number) => Promise<Store>,
  makeTime: () => ContractTime = fakeTime,
): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let time: ContractTime;
    let run: string;
    /** An id unique to this test, so stores shared between runs never see stale records. */
    const id = (suffix: string) => `${run}-${suffix}`;
    const grant = (suffix: string) => `${run}-grant-${suffix}`;
    const ttl = () => ({ ttlSeconds: time.ttlSeconds });
    const pastExpiry = () => time.advance(time.ttlSeconds * 1.5);
    const beforeExpiry = () => time.advance(time.ttlSeconds * 0.5);

    beforeEach(async () => {
      time = makeTime();
      store = await makeStore(time.now);
      run = crypto.randomUUID();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('get and set', () => {
      it('returns undefined for an absent record', async () => {
        expect(await store.get(NS, id('absent'))).toBeUndefined();
      });

      it('round-trips a JSON value as an equal copy, never a shared reference', async () => {
        const value = {
          sub: 'alice',
          scopes: ['openid', 'profile'],
          claims: { n: 1, ok: true, none: null },
        };
        await store.set(NS, id('a'), value);
        value.scopes.push('mutated after set');

        const first = await store.get<typeof value>(NS, id('a'));
        expect(first).toEqual({
          sub: 'alice',
          scopes: ['openid', 'profile'],
          claims: { n: 1, ok: true, none: null },
        });
        first?.scopes.push('mutated after get');
        const second = await store.get<typeof value>(NS, id('a'));
        expect(second?.scopes).toEqual(['openid', 'profile']);
        expect(second).not.toBe(first);
      });

      it('replaces a record', async () => {
        await store.set(NS, id('a'), { v: 1 });
        await store.set(NS, id('a'), { v: 2 });
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('keeps ids apart that differ only in separators or case', async () => {
        const ids = ['a:b', 'a/b', 'a b', 'A:B', 'ä:b', 'a:b:'].map(id);
        await Promise.all(ids.map((each, index) => store.set(NS, each, { index })));
        for (const [index, each] of ids.entries())
          expect(await store.get(NS, each)).toEqual({ index });
      });

      it('keeps namespaces apart', async () => {
        await store.set(NS, id('a'), { ns: 1 });
        await store.set(OTHER_NS, id('a'), { ns: 2 });
        expect(await store.get(NS, id('a'))).toEqual({ ns: 1 });
        expect(await store.delete(OTHER_NS, id('a'))).toBe(true);
        expect(await store.get(NS, id('a'))).toEqual({ ns: 1 });
        expect(await store.get(OTHER_NS, id('a'))).toBeUndefined();
        expect(await store.add(OTHER_NS, id('a'), { ns: 3 })).toBe(true);
        expect(await store.consume(OTHER_NS, id('a'))).toEqual({
          value: { ns: 3 },
          firstUse: true,
        });
        expect(await store.consume(NS, id('a'))).toEqual({ value: { ns: 1 }, firstUse: true });
      });
    });

    describe('expiry', () => {
      it('hides a record from get once its TTL has passed', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await beforeExpiry();
        expect(await store.get(NS, id('a'))).toEqual({ v: 1 });
        await pastExpiry();
        expect(await store.get(NS, id('a'))).toBeUndefined();
      });

      it('never expires a record written without a TTL', async () => {
        await store.set(NS, id('a'), { v: 1 });
        await pastExpiry();
        expect(await store.get(NS, id('a'))).toEqual({ v: 1 });
      });

      it('lets add write over an expired record', async () => {
        expect(await store.add(NS, id('a'), { v: 1 }, ttl())).toBe(true);
        await pastExpiry();
        expect(await store.add(NS, id('a'), { v: 2 }, ttl())).toBe(true);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('gives undefined when consuming an expired record', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await pastExpiry();
        expect(await store.consume(NS, id('a'))).toBeUndefined();
      });

      it('answers false when deleting an expired record', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await pastExpiry();
        expect(await store.delete(NS, id('a'))).toBe(false);
      });

      it('leaves expired records out of listGrant and the revokeGrant count', async () => {
        await store.set(NS, id('short'), { v: 1 }, { ...ttl(), grantId: grant('g') });
        await store.set(NS, id('long'), { v: 2 }, { grantId: grant('g') });
        await pastExpiry();
        expect(await store.listGrant(grant('g'))).toEqual([{ namespace: NS, id: id('long') }]);
        expect(await store.revokeGrant(grant('g'))).toBe(1);
      });

      it('restarts the expiry when set replaces a record', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await store.set(NS, id('a'), { v: 2 });
        await pastExpiry();
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });
    });

    describe('add', () => {
      it('writes only when no live record has the id', async () => {
        expect(await store.add(NS, id('a'), { v: 1 })).toBe(true);
        expect(await store.add(NS, id('a'), { v: 2 })).toBe(false);
        expect(await store.get(NS, id('a'))).toEqual({ v: 1 });
      });

      it(`lets exactly one of ${CONCURRENT_CALLERS} concurrent callers win`, async () => {
        const results = await Promise.all(
          Array.from({ length: CONCURRENT_CALLERS }, (_, caller) =>
            store.add(NS, id('race'), { caller }, ttl()),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get(NS, id('race'))).toEqual({ caller: results.indexOf(true) });
      });
    });

    describe('consume', () => {
      it('gives undefined for an absent record', async () => {
        expect(await store.consume(NS, id('absent'))).toBeUndefined();
      });

      it('reports the first use once, then replays with the same value', async () => {
        await store.set(NS, id('code'), { sub: 'alice' }, ttl());
        expect(await store.consume(NS, id('code'))).toEqual({
          value: { sub: 'alice' },
          firstUse: true,
        });
        expect(await store.consume(NS, id('code'))).toEqual({
          value: { sub: 'alice' },
          firstUse: false,
        });
        expect(await store.consume(NS, id('code'))).toEqual({
          value: { sub: 'alice' },
          firstUse: false,
        });
      });

      it('leaves a used record readable by get until it expires (reuse detection reads it)', async () => {
        await store.set(NS, id('code'), { sub: 'alice' }, ttl());
        await store.consume(NS, id('code'));
        expect(await store.get(NS, id('code'))).toEqual({ sub: 'alice' });
      });

      it(`gives exactly one of ${CONCURRENT_CALLERS} concurrent callers the first use`, async () => {
        await store.set(NS, id('code'), { sub: 'alice' }, ttl());
        const results = await Promise.all(
          Array.from({ length: CONCURRENT_CALLERS }, () => store.consume(NS, id('code'))),
        );
        expect(results.filter((result) => result?.firstUse)).toHaveLength(1);
        for (const result of results) expect(result?.value).toEqual({ sub: 'alice' });
        expect(await store.consume(NS, id('code'))).toEqual({
          value: { sub: 'alice' },
          firstUse: false,
        });
      });

      it('keeps the original expiry', async () => {
        await store.set(NS, id('code'), { sub: 'alice' }, ttl());
        await beforeExpiry();
        expect((await store.consume(NS, id('code')))?.firstUse).toBe(true);
        // Together with beforeExpiry, past the original TTL but well within a TTL restarted by consume.
        await time.advance(time.ttlSeconds * 0.75);
        expect(await store.consume(NS, id('code'))).toBeUndefined();
        expect(await store.get(NS, id('code'))).toBeUndefined();
      });
    });

    describe('read and replace', () => {
      it('reads a record with its revision, and undefined for an absent one', async () => {
        await store.set(NS, id('req'), { state: 'pending' }, ttl());
        expect(await store.read(NS, id('req'))).toEqual({
          value: { state: 'pending' },
          revision: expect.any(Number),
        });
        expect(await store.read(NS, id('absent'))).toBeUndefined();
      });

      it('replaces only the revision it read, and changes the revision', async () => {
        await store.set(NS, id('req'), { state: 'pending' }, ttl());
        const read = await store.read<{ state: string }>(NS, id('req'));
        if (!read) throw new Error('record missing');
        expect(await store.replace(NS, id('req'), read.revision, { state: 'approved' })).toBe(true);
        expect(await store.replace(NS, id('req'), read.revision, { state: 'denied' })).toBe(false);
        const after = await store.read(NS, id('req'));
        expect(after?.value).toEqual({ state: 'approved' });
        expect(after?.revision).not.toBe(read.revision);
      });

      it('sees a set, a delete and a re-creation as changes', async () => {
        await store.set(NS, id('req'), { n: 1 }, ttl());
        const first = await store.read(NS, id('req'));
        await store.delete(NS, id('req'));
        await store.set(NS, id('req'), { n: 1 }, ttl());
        expect(await store.replace(NS, id('req'), first?.revision ?? -1, { n: 2 })).toBe(false);
        expect(await store.replace(NS, id('absent'), 1, { n: 2 })).toBe(false);
      });

      it(`lets exactly one of ${CONCURRENT_CALLERS} concurrent replaces of one revision win`, async () => {
        await store.set(NS, id('req'), { winner: 'none' }, ttl());
        const read = await store.read(NS, id('req'));
        const results = await Promise.all(
          Array.from({ length: CONCURRENT_CALLERS }, (_, n) =>
            store.replace(NS, id('req'), read?.revision ?? -1, { winner: n }),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await store.get(NS, id('req'))) as unknown).toEqual({ winner });
      });

      it('keeps the expiry and the grant of the record', async () => {
        await store.set(NS, id('req'), { n: 1 }, { ...ttl(), grantId: grant('g') });
        const read = await store.read(NS, id('req'));
        await beforeExpiry();
        expect(await store.replace(NS, id('req'), read?.revision ?? -1, { n: 2 })).toBe(true);
        expect(await store.listGrant(grant('g'))).toEqual([{ namespace: NS, id: id('req') }]);
        await time.advance(time.ttlSeconds * 0.75);
        expect(await store.read(NS, id('req'))).toBeUndefined();
        const expired = await store.replace(NS, id('req'), read?.revision ?? -1, { n: 3 });
        expect(expired).toBe(false);
      });
    });

    describe('delete', () => {
      it('removes a live record and says so', async () => {
        await store.set(NS, id('a'), { v: 1 });
        expect(await store.delete(NS, id('a'))).toBe(true);
        expect(await store.get(NS, id('a'))).toBeUndefined();
        expect(await store.delete(NS, id('a'))).toBe(false);
      });

      it('answers false for an absent record', async () => {
        expect(await store.delete(NS, id('absent'))).toBe(false);
      });

      it('takes the record out of its grant', async () => {
        await store.set(NS, id('a'), { v: 1 }, { grantId: grant('g') });
        await store.set(NS, id('b'), { v: 2 }, { grantId: grant('g') });
        await store.delete(NS, id('a'));
        expect(await store.listGrant(grant('g'))).toEqual([{ namespace: NS, id: id('b') }]);
      });
    });

    describe('grants', () => {
      const byKey = (a: { namespace: string; id: string }, b: { namespace: string; id: string }) =>
        `${a.namespace} ${a.id}`.localeCompare(`${b.namespace} ${b.id}`);

      it('lists and revokes the records of one grant across namespaces, and nothing else', async () => {
        await store.set(NS, id('at'), { v: 1 }, { ...ttl(), grantId: grant('g1') });
        await store.set(OTHER_NS, id('rt'), { v: 2 }, { grantId: grant('g1') });
        await store.set(NS, id('other-grant'), { v: 3 }, { grantId: grant('g2') });
        await store.set(NS, id('no-grant'), { v: 4 });

        const listed = await store.listGrant(grant('g1'));
        expect(listed.sort(byKey)).toEqual(
          [
            { namespace: NS, id: id('at') },
            { namespace: OTHER_NS, id: id('rt') },
          ].sort(byKey),
        );
        expect(await store.revokeGrant(grant('g1'))).toBe(2);
        expect(await store.get(NS, id('at'))).toBeUndefined();
        expect(await store.get(OTHER_NS, id('rt'))).toBeUndefined();
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g1'))).toBe(0);

        expect(await store.get(NS, id('other-grant'))).toEqual({ v: 3 });
        expect(await store.get(NS, id('no-grant'))).toEqual({ v: 4 });
        expect(await store.listGrant(grant('g2'))).toEqual([
          { namespace: NS, id: id('other-grant') },
        ]);
      });

      it('knows no records of an unknown grant', async () => {
        expect(await store.listGrant(grant('unknown'))).toEqual([]);
        expect(await store.revokeGrant(grant('unknown'))).toBe(0);
      });

      it('moves a record to the grant of the set that replaces it', async () => {
        await store.set(NS, id('a'), { v: 1 }, { grantId: grant('g1') });
        await store.set(NS, id('a'), { v: 2 }, { grantId: grant('g2') });
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.listGrant(grant('g2'))).toEqual([{ namespace: NS, id: id('a') }]);
        expect(await store.revokeGrant(grant('g1'))).toBe(0);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('takes a record out of its grant when set replaces it without one', async () => {
        await store.set(NS, id('a'), { v: 1 }, { grantId: grant('g1') });
        await store.set(NS, id('a'), { v: 2 });
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g1'))).toBe(0);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('lets add over an expired record join a new grant', async () => {
        await store.set(NS, id('a'), { v: 1 }, { ...ttl(), grantId: grant('g1') });
        await pastExpiry();
        expect(await store.add(NS, id('a'), { v: 2 }, { grantId: grant('g2') })).toBe(true);
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g2'))).toBe(1);
      });
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
