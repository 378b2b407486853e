import { describe, expect, it } from 'vitest';
import type { RecordCap, Store } from '../store/store.js';
import type { ContractTime } from './store-contract.js';

const NS = 'contract_capped';

/** What the contract suite's current test gives the capped-record tests. */
export interface CappedContractEnv {
  store: Store;
  time: ContractTime;
  /** An id unique to this test; also used for cap keys, so runs never share a cap. */
  id(suffix: string): string;
}

/**
 * `setCapped`, `metrics` and how capped records live beside the other operations: part of the
 * Store contract, run for every store by `describeStoreContract`.
 */
export function describeCappedRecords(env: () => CappedContractEnv): void {
  describe('capped records', () => {
    const write = (suffix: string, caps: readonly RecordCap[], value: unknown = { suffix }) => {
      const { store, time, id } = env();
      return store.setCapped(NS, id(suffix), value, { ttlSeconds: time.ttlSeconds, caps });
    };
    const cap = (suffix: string, max: number): RecordCap => ({ key: env().id(suffix), max });
    const alive = async (...suffixes: string[]) => {
      const { store, id } = env();
      const found = await Promise.all(suffixes.map((suffix) => store.get(NS, id(suffix))));
      return suffixes.filter((_, index) => found[index] !== undefined);
    };

    it('keeps the newest records of a cap and drops the oldest written, counting what it dropped', async () => {
      const realm = cap('realm', 3);
      const dropped = [];
      for (const suffix of ['a', 'b', 'c', 'd', 'e']) dropped.push(await write(suffix, [realm]));
      expect(dropped).toEqual([0, 0, 0, 1, 1]);
      expect(await alive('a', 'b', 'c', 'd', 'e')).toEqual(['c', 'd', 'e']);
      expect(env().store.metrics().evicted).toBeGreaterThanOrEqual(2);
    });

    it('applies each cap on its own: a record goes when any of its caps is full', async () => {
      const realm = cap('realm', 10);
      const browser = cap('browser', 2);
      await write('a', [realm, browser]);
      await write('b', [realm, cap('other-browser', 2)]);
      await write('c', [realm, browser]);
      await write('d', [realm, browser]);
      expect(await alive('a', 'b', 'c', 'd')).toEqual(['b', 'c', 'd']);
    });

    it('counts a record written again as the newest, under the caps of that write only', async () => {
      const pending = cap('pending', 2);
      const shown = cap('shown', 2);
      await write('a', [pending]);
      await write('b', [pending]);
      await write('a', [shown], { suffix: 'a', shown: true });
      await write('c', [pending]);
      await write('d', [pending]);
      expect(await alive('a', 'b', 'c', 'd')).toEqual(['a', 'c', 'd']);
      expect(await env().store.get(NS, env().id('a'))).toEqual({ suffix: 'a', shown: true });
    });

    it('keeps a replaced or consumed record under its caps, and frees the place of a deleted one', async () => {
      const { store, id } = env();
      const group = cap('group', 2);
      await write('a', [group]);
      const read = await store.read(NS, id('a'));
      expect(await store.replace(NS, id('a'), read?.revision ?? -1, { replaced: true })).toBe(true);
      expect((await store.consume(NS, id('a')))?.firstUse).toBe(true);
      await write('b', [group]);
      expect(await write('c', [group])).toBe(1);
      expect(await alive('a', 'b', 'c')).toEqual(['b', 'c']);

      expect(await store.delete(NS, id('b'))).toBe(true);
      expect(await write('d', [group])).toBe(0);
      expect(await alive('c', 'd')).toEqual(['c', 'd']);
    });

    it('expires a capped record like any other', async () => {
      const { store, id, time } = env();
      await write('a', [cap('group', 5)]);
      await time.advance(time.ttlSeconds * 0.5);
      expect(await store.get(NS, id('a'))).toEqual({ suffix: 'a' });
      await time.advance(time.ttlSeconds);
      expect(await store.get(NS, id('a'))).toBeUndefined();
    });

    it('never drops a record written with set', async () => {
      const { store, id } = env();
      await store.set(NS, id('kept'), { v: 1 });
      const group = cap('group', 1);
      await write('a', [group]);
      await write('b', [group]);
      expect(await store.get(NS, id('kept'))).toEqual({ v: 1 });
    });

    it('holds a cap after concurrent writes once one more write has landed', async () => {
      const group = cap('group', 5);
      const suffixes = Array.from({ length: 30 }, (_, n) => `w${n}`);
      await Promise.all(suffixes.map((suffix) => write(suffix, [group])));
      await write('last', [group]);
      const survivors = await alive(...suffixes, 'last');
      expect(survivors).toContain('last');
      expect(survivors.length).toBeLessThanOrEqual(5);
    });

    it('refuses a record that would never expire or a cap that holds nothing', async () => {
      const { store, id } = env();
      const caps = [cap('group', 1)];
      await expect(store.setCapped(NS, id('a'), {}, { ttlSeconds: 0, caps })).rejects.toThrow(
        RangeError,
      );
      await expect(
        store.setCapped(NS, id('a'), {}, { ttlSeconds: 60, caps: [cap('group', 0)] }),
      ).rejects.toThrow(RangeError);
    });

    it('starts its metrics at zero', async () => {
      expect(env().store.metrics()).toMatchObject({ evicted: 0, shed: 0, refused: 0 });
    });
  });
}
