import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FieldConditions, REVOKED_GRANT_SECONDS, type Store } from '../store/store.js';
import { describeCappedRecords } from './capped-contract.js';
import { fakeClock } from './clock.js';

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
  /** Whether `advance` is instant, so that tests may let minutes pass. */
  readonly instant: boolean;
}

/** Time for a store that takes a clock: the suite moves it, so expiry tests take no time. */
export function fakeTime(ttlSeconds = 60): ContractTime {
  const clock = fakeClock();
  return {
    now: clock.now,
    advance: async (seconds) => clock.advance(seconds),
    ttlSeconds,
    instant: true,
  };
}

/** Time for a store on its server's clock: the expiry tests sleep past `ttlSeconds`. */
export function realTime(ttlSeconds = 1): ContractTime {
  return {
    now: Date.now,
    advance: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
    ttlSeconds,
    instant: false,
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
    const instantTime = makeTime().instant;
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

      it('leaves expired records out of listGrant and of what revokeGrant removed', async () => {
        await store.set(NS, id('short'), { v: 1 }, { ...ttl(), grantId: grant('g') });
        await store.set(NS, id('long'), { v: 2 }, { grantId: grant('g') });
        await pastExpiry();
        expect(await store.listGrant(grant('g'))).toEqual([{ namespace: NS, id: id('long') }]);
        expect(await store.revokeGrant(grant('g'))).toEqual([{ namespace: NS, id: id('long') }]);
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

      it('keeps the note of the first use and gives it to every caller, never to get', async () => {
        await store.set(NS, id('token'), { sub: 'alice' }, ttl());
        const note = { successor: 'abc', at: 1 };
        expect(await store.consume(NS, id('token'), note)).toEqual({
          value: { sub: 'alice' },
          firstUse: true,
          note,
        });
        note.successor = 'mutated after consume';
        expect(await store.consume(NS, id('token'), { successor: 'other' })).toEqual({
          value: { sub: 'alice' },
          firstUse: false,
          note: { successor: 'abc', at: 1 },
        });
        expect(await store.get(NS, id('token'))).toEqual({ sub: 'alice' });
      });

      it('keeps no note when the first use left none, and forgets it when set replaces the record', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await store.consume(NS, id('a'));
        expect((await store.consume(NS, id('a'), 'late'))?.note).toBeUndefined();
        await store.set(NS, id('b'), { v: 1 }, ttl());
        await store.consume(NS, id('b'), 'first');
        await store.set(NS, id('b'), { v: 2 }, ttl());
        expect(await store.consume(NS, id('b'))).toEqual({ value: { v: 2 }, firstUse: true });
      });

      it(`gives all of ${CONCURRENT_CALLERS} concurrent callers the note of the one first use`, async () => {
        await store.set(NS, id('token'), { sub: 'alice' }, ttl());
        const results = await Promise.all(
          Array.from({ length: CONCURRENT_CALLERS }, (_, caller) =>
            store.consume(NS, id('token'), { caller }),
          ),
        );
        const first = results.filter((result) => result?.firstUse);
        expect(first).toHaveLength(1);
        const winner = first[0]?.note;
        expect(winner).toEqual({ caller: expect.any(Number) });
        for (const result of results) expect(result?.note).toEqual(winner);
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

    // Optional in the contract; every store of this repository has it, and the provider's
    // stand-in for a store without it is tested in store/consume-if.test.ts.
    describe('consumeIf', () => {
      const CODE = { clientId: 'web', redirectUri: 'https://app.example/cb', exp: 1 };
      const consumeIf = (suffix: string, fields: FieldConditions) => {
        if (!store.consumeIf) throw new Error(`${name} has no consumeIf`);
        return store.consumeIf(NS, id(suffix), fields);
      };

      it('gives undefined for an absent record', async () => {
        expect(await consumeIf('absent', { clientId: ['web'] })).toBeUndefined();
      });

      it('spends a record whose fields match, once, and then reports replays', async () => {
        await store.set(NS, id('code'), CODE, ttl());
        const fields = { clientId: ['web'], redirectUri: ['https://app.example/cb'] };
        expect(await consumeIf('code', fields)).toEqual({
          value: CODE,
          firstUse: true,
          matched: true,
        });
        expect(await consumeIf('code', fields)).toEqual({
          value: CODE,
          firstUse: false,
          matched: true,
        });
        expect(await store.consume(NS, id('code'))).toEqual({ value: CODE, firstUse: false });
      });

      it('leaves a record whose fields do not match unspent, and says so', async () => {
        await store.set(NS, id('code'), CODE, ttl());
        const mismatches: FieldConditions[] = [
          { clientId: ['other'] },
          { clientId: ['web'], redirectUri: ['https://app.example/other'] },
          { clientId: ['web'], exp: ['1'] },
          { clientId: [] },
        ];
        for (const fields of mismatches) {
          expect(await consumeIf('code', fields)).toEqual({
            value: CODE,
            firstUse: false,
            matched: false,
          });
        }
        expect(await consumeIf('code', { clientId: ['web'] })).toEqual({
          value: CODE,
          firstUse: true,
          matched: true,
        });
      });

      it('takes null for a field that is absent or null, and any of several values', async () => {
        await store.set(NS, id('code'), { ...CODE, dpopJkt: null }, ttl());
        expect((await consumeIf('code', { codeChallenge: ['abc'] }))?.matched).toBe(false);
        expect((await consumeIf('code', { clientId: [null] }))?.matched).toBe(false);
        expect(
          await consumeIf('code', {
            codeChallenge: [null],
            dpopJkt: [null, 'jkt'],
            clientId: ['x', 'web'],
          }),
        ).toMatchObject({ firstUse: true, matched: true });
      });

      it('matches strings and null only: never a number, boolean, array, object or inherited name', async () => {
        await store.set(
          NS,
          id('code'),
          { count: 5, on: true, list: ['web'], object: { a: 'web' }, none: null },
          ttl(),
        );
        const mismatches: FieldConditions[] = [
          { count: ['5'] },
          { on: ['true'] },
          { list: ['web'] },
          { object: ['web'] },
          { none: ['null'] },
          { count: [null] },
        ];
        for (const fields of mismatches) {
          expect((await consumeIf('code', fields))?.matched).toBe(false);
        }
        expect(
          (await consumeIf('code', { none: [null], constructor: [null], toString: [null] }))
            ?.matched,
        ).toBe(true);
      });

      it('judges values JSON text can carry but jsonb cannot: \\u0000 and lone surrogates', async () => {
        const odd = { nonce: 'a\u0000b', other: '\ud800', clientId: 'web' };
        await store.set(NS, id('code'), odd, ttl());
        expect(await consumeIf('code', { clientId: ['web\u0000'] })).toEqual({
          value: odd,
          firstUse: false,
          matched: false,
        });
        expect(await consumeIf('code', { clientId: ['web'], nonce: ['a\u0000b'] })).toEqual({
          value: odd,
          firstUse: true,
          matched: true,
        });
        await store.set(NS, id('plain'), { clientId: 'web' }, ttl());
        expect((await consumeIf('plain', { clientId: ['\ud800'] }))?.matched).toBe(false);
        expect((await consumeIf('plain', { clientId: ['web'] }))?.firstUse).toBe(true);
      });

      it(`gives exactly one of ${CONCURRENT_CALLERS} concurrent matching callers the first use`, async () => {
        await store.set(NS, id('code'), CODE, ttl());
        const results = await Promise.all(
          Array.from({ length: CONCURRENT_CALLERS }, (_, caller) =>
            consumeIf('code', { clientId: caller % 2 ? ['web'] : ['other'] }),
          ),
        );
        expect(results.filter((result) => result?.firstUse)).toHaveLength(1);
        expect(results.filter((result) => result?.matched)).toHaveLength(CONCURRENT_CALLERS / 2);
      });

      it('shares the used mark with consume and keeps the original expiry', async () => {
        await store.set(NS, id('code'), CODE, ttl());
        await store.consume(NS, id('code'));
        expect(await consumeIf('code', { clientId: ['web'] })).toMatchObject({
          firstUse: false,
          matched: true,
        });
        await time.advance(time.ttlSeconds * 1.5);
        expect(await consumeIf('code', { clientId: ['web'] })).toBeUndefined();
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

      it('restarts the expiry when given a TTL', async () => {
        await store.set(NS, id('a'), { v: 1 }, ttl());
        await beforeExpiry();
        const read = await store.read(NS, id('a'));
        expect(await store.replace(NS, id('a'), read?.revision ?? -1, { v: 2 }, ttl())).toBe(true);
        await time.advance(time.ttlSeconds * 0.75);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
        await time.advance(time.ttlSeconds * 0.5);
        expect(await store.get(NS, id('a'))).toBeUndefined();
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
        expect((await store.revokeGrant(grant('g1'))).sort(byKey)).toEqual(
          [
            { namespace: NS, id: id('at') },
            { namespace: OTHER_NS, id: id('rt') },
          ].sort(byKey),
        );
        expect(await store.get(NS, id('at'))).toBeUndefined();
        expect(await store.get(OTHER_NS, id('rt'))).toBeUndefined();
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g1'))).toEqual([]);

        expect(await store.get(NS, id('other-grant'))).toEqual({ v: 3 });
        expect(await store.get(NS, id('no-grant'))).toEqual({ v: 4 });
        expect(await store.listGrant(grant('g2'))).toEqual([
          { namespace: NS, id: id('other-grant') },
        ]);
      });

      it('knows no records of an unknown grant', async () => {
        expect(await store.listGrant(grant('unknown'))).toEqual([]);
        expect(await store.revokeGrant(grant('unknown'))).toEqual([]);
      });

      it('moves a record to the grant of the set that replaces it', async () => {
        await store.set(NS, id('a'), { v: 1 }, { grantId: grant('g1') });
        await store.set(NS, id('a'), { v: 2 }, { grantId: grant('g2') });
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.listGrant(grant('g2'))).toEqual([{ namespace: NS, id: id('a') }]);
        expect(await store.revokeGrant(grant('g1'))).toEqual([]);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('takes a record out of its grant when set replaces it without one', async () => {
        await store.set(NS, id('a'), { v: 1 }, { grantId: grant('g1') });
        await store.set(NS, id('a'), { v: 2 });
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g1'))).toEqual([]);
        expect(await store.get(NS, id('a'))).toEqual({ v: 2 });
      });

      it('lets add over an expired record join a new grant', async () => {
        await store.set(NS, id('a'), { v: 1 }, { ...ttl(), grantId: grant('g1') });
        await pastExpiry();
        expect(await store.add(NS, id('a'), { v: 2 }, { grantId: grant('g2') })).toBe(true);
        expect(await store.listGrant(grant('g1'))).toEqual([]);
        expect(await store.revokeGrant(grant('g2'))).toEqual([{ namespace: NS, id: id('a') }]);
      });
    });

    describe('revoked grants', () => {
      it('keeps nothing written under a revoked grant afterwards, and add says so', async () => {
        await store.set(NS, id('before'), { v: 1 }, { grantId: grant('g') });
        await store.revokeGrant(grant('g'));
        await store.set(NS, id('after'), { v: 2 }, { ...ttl(), grantId: grant('g') });
        expect(await store.add(NS, id('added'), { v: 3 }, { grantId: grant('g') })).toBe(false);
        for (const name of ['before', 'after', 'added'])
          expect(await store.get(NS, id(name))).toBeUndefined();
        expect(await store.listGrant(grant('g'))).toEqual([]);
      });

      it('closes a grant that never had a record', async () => {
        expect(await store.revokeGrant(grant('empty'))).toEqual([]);
        expect(await store.add(NS, id('a'), { v: 1 }, { grantId: grant('empty') })).toBe(false);
        expect(await store.get(NS, id('a'))).toBeUndefined();
      });

      it('leaves no record under an id that set writes with a revoked grant', async () => {
        await store.set(NS, id('a'), { v: 1 });
        await store.revokeGrant(grant('g'));
        await store.set(NS, id('a'), { v: 2 }, { grantId: grant('g') });
        expect(await store.get(NS, id('a'))).toBeUndefined();
      });

      it('leaves other grants and records without a grant open', async () => {
        await store.revokeGrant(grant('g1'));
        await store.set(NS, id('other'), { v: 1 }, { grantId: grant('g2') });
        expect(await store.add(NS, id('none'), { v: 2 })).toBe(true);
        expect(await store.get(NS, id('other'))).toEqual({ v: 1 });
        expect(await store.get(NS, id('none'))).toEqual({ v: 2 });
      });

      it(`leaves none of ${CONCURRENT_CALLERS} writes racing the revocation behind`, async () => {
        const writes = Array.from({ length: CONCURRENT_CALLERS }, (_, index) =>
          index % 2 === 0
            ? store.set(NS, id(`w${index}`), { index }, { grantId: grant('race') })
            : store.add(NS, id(`w${index}`), { index }, { grantId: grant('race') }),
        );
        const revoked = store.revokeGrant(grant('race'));
        await Promise.all([...writes, revoked]);
        expect(await store.listGrant(grant('race'))).toEqual([]);
        for (let index = 0; index < CONCURRENT_CALLERS; index++)
          expect(await store.get(NS, id(`w${index}`))).toBeUndefined();
      });

      it.runIf(instantTime)(
        `opens the grant again ${REVOKED_GRANT_SECONDS} seconds after the revocation`,
        async () => {
          await store.revokeGrant(grant('g'));
          await time.advance(REVOKED_GRANT_SECONDS - 1);
          expect(await store.add(NS, id('a'), { v: 1 }, { grantId: grant('g') })).toBe(false);
          await time.advance(2);
          expect(await store.add(NS, id('a'), { v: 1 }, { grantId: grant('g') })).toBe(true);
        },
      );
    });

    describeCappedRecords(() => ({ store, time, id }));

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
