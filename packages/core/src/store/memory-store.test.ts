import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../../../test/support/fixtures.js';
import { MemoryStore } from './memory-store.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('MemoryStore', async (now) => new MemoryStore({ now }));

describe('MemoryStore', () => {
  it('expires a record exactly when its TTL has passed', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    await store.set('ns', 'a', { v: 1 }, { ttlSeconds: 10 });
    clock.advance(9.999);
    expect(await store.get('ns', 'a')).toEqual({ v: 1 });
    clock.advance(0.001);
    expect(await store.get('ns', 'a')).toBeUndefined();
  });

  it('keeps its size bounded while short-lived records keep arriving', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    // A steady state of about 100 live records: one write every 10 ms, each living one second.
    for (let i = 0; i < 20_000; i++) {
      await store.set('access_token', `t${i}`, { i }, { ttlSeconds: 1, grantId: `g${i}` });
      clock.advance(0.01);
    }
    // Sweeps run every max(1024, size after the last sweep) writes.
    expect(store.size).toBeLessThanOrEqual(1024 + 100);
    expect(await store.listGrant('g0')).toEqual([]);
  });

  it('drops expired records on the writes after they expired', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    for (let i = 0; i < 5000; i++) await store.set('jti', `old${i}`, {}, { ttlSeconds: 60 });
    clock.advance(61);
    for (let i = 0; i < 5000; i++) await store.set('jti', `new${i}`, {}, { ttlSeconds: 60 });
    expect(store.size).toBe(5000);
  });

  it('forgets everything on close', async () => {
    const store = new MemoryStore();
    await store.set('ns', 'a', { v: 1 }, { grantId: 'g' });
    await store.close();
    expect(store.size).toBe(0);
    expect(await store.listGrant('g')).toEqual([]);
  });
});
