import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors/oauth-error.js';
import { fakeClock } from '../testing/clock.js';
import { describeStoreContract } from '../testing/store-contract.js';
import { ENTRY_OVERHEAD_BYTES, MemoryStore } from './memory-store.js';

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

  describe('maxBytes', () => {
    /** Room for about `records` records of the shape written below. */
    const storeFor = (records: number, now?: () => number) =>
      new MemoryStore({ maxBytes: records * (ENTRY_OVERHEAD_BYTES + 40), ...(now ? { now } : {}) });
    const capped = (store: MemoryStore, id: string) =>
      store.setCapped(
        'interaction',
        id,
        { id },
        { ttlSeconds: 60, caps: [{ key: 'r', max: 1e6 }] },
      );

    it('drops the oldest capped records first when full, and counts them', async () => {
      const store = storeFor(10);
      for (let i = 0; i < 5; i++) await store.set('session', `s${i}`, { i });
      for (let i = 0; i < 20; i++) await capped(store, `i${i}`);
      expect(store.bytes).toBeLessThanOrEqual(10 * (ENTRY_OVERHEAD_BYTES + 40));
      for (let i = 0; i < 5; i++) expect(await store.get('session', `s${i}`)).toEqual({ i });
      expect(await store.get('interaction', 'i0')).toBeUndefined();
      expect(await store.get('interaction', 'i19')).toEqual({ id: 'i19' });
      const { shed, refused, records } = store.metrics();
      expect(shed).toBeGreaterThanOrEqual(15);
      expect(refused).toBe(0);
      expect(records).toBeLessThanOrEqual(10);
    });

    it('makes room for codes, tokens and sessions by dropping capped records', async () => {
      const store = storeFor(10);
      for (let i = 0; i < 10; i++) await capped(store, `i${i}`);
      await store.set('authorization_code', 'c', { sub: 'alice' }, { ttlSeconds: 60 });
      expect(await store.get('authorization_code', 'c')).toEqual({ sub: 'alice' });
      expect(await store.get('interaction', 'i0')).toBeUndefined();
    });

    it('refuses a write, keeping what it would have replaced, once nothing can be dropped', async () => {
      const store = storeFor(5);
      for (let i = 0; i < 5; i++) await store.set('session', `s${i}`, { i });
      await expect(store.set('session', 'extra', { i: 99 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.set('session', 's0', { i: 0, padding: 'x'.repeat(500) })).rejects.toThrow(
        'the memory store is full',
      );
      await expect(capped(store, 'i0')).rejects.toThrow('the memory store is full');
      expect(await store.get('session', 's0')).toEqual({ i: 0 });
      expect(store.metrics().refused).toBe(3);
    });

    it('sweeps expired records before refusing', async () => {
      const clock = fakeClock();
      const store = storeFor(5, clock.now);
      for (let i = 0; i < 5; i++) await store.set('token', `t${i}`, { i }, { ttlSeconds: 1 });
      clock.advance(2);
      await store.set('token', 'fresh', { i: 5 });
      expect(await store.get('token', 'fresh')).toEqual({ i: 5 });
      expect(store.size).toBe(1);
    });

    it('counts a replace that grows a record, and gives its bytes back on delete', async () => {
      const store = new MemoryStore();
      await store.set('ns', 'a', { v: 1 });
      const before = store.bytes;
      const read = await store.read('ns', 'a');
      await store.replace('ns', 'a', read?.revision ?? -1, { v: 1, more: 'x'.repeat(100) });
      expect(store.bytes).toBe(before + `,"more":"${'x'.repeat(100)}"`.length);
      await store.delete('ns', 'a');
      expect(store.bytes).toBe(0);
    });
  });
});
