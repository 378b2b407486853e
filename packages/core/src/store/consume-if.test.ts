import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../index.js';
import { consumeIf } from './consume-if.js';
import type { FieldConditions, Store } from './store.js';

/** A store of the contract without the optional `consumeIf`: the provider reads, checks, consumes. */
function withoutConsumeIf(): Store {
  const store = new MemoryStore();
  return new Proxy(store, {
    get(target, property) {
      if (property === 'consumeIf') return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('consumeIf with a store that lacks it', () => {
  const CODE = { clientId: 'web', redirectUri: 'https://app.example/cb' };

  it('spends a matching record once, leaves a mismatching one unspent', async () => {
    const store = withoutConsumeIf();
    await store.set('code', 'a', CODE);
    expect(await consumeIf(store, 'code', 'a', { clientId: ['other'] })).toEqual({
      value: CODE,
      firstUse: false,
      matched: false,
    });
    expect(await consumeIf(store, 'code', 'a', { clientId: ['web'], dpopJkt: [null] })).toEqual({
      value: CODE,
      firstUse: true,
      matched: true,
    });
    expect(await consumeIf(store, 'code', 'a', { clientId: ['web'] })).toMatchObject({
      firstUse: false,
      matched: true,
    });
    expect(await consumeIf(store, 'code', 'absent', { clientId: ['web'] })).toBeUndefined();
  });

  it('gives the same answers as a store that has it', async () => {
    const own = new MemoryStore();
    const without = withoutConsumeIf();
    const value = { clientId: 'web', count: 5, dpopJkt: null };
    const conditions: FieldConditions[] = [
      { clientId: ['web'] },
      { count: ['5'] },
      { dpopJkt: [null] },
      { missing: [null, 'x'] },
      { clientId: [null] },
    ];
    for (const [index, fields] of conditions.entries()) {
      await own.set('code', String(index), value);
      await without.set('code', String(index), value);
      expect(await consumeIf(without, 'code', String(index), fields)).toEqual(
        await consumeIf(own, 'code', String(index), fields),
      );
    }
  });
});
