import { describe, expect, it } from 'vitest';
import { ExpiringMap } from './expiring-map.js';
import { memoryReplayCache } from './replay-cache.js';

describe('ExpiringMap', () => {
  it('forgets an entry when it expires', () => {
    let now = 0;
    const map = new ExpiringMap<string>(10, () => now);
    map.set('a', 'A', 100);
    expect(map.get('a')).toBe('A');
    now = 100;
    expect(map.get('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('when full, drops the expired entries at the front, then the oldest', () => {
    let now = 0;
    const map = new ExpiringMap<number>(3, () => now);
    map.set('a', 1, 10);
    map.set('b', 2, 20);
    map.set('c', 3, 1000);
    now = 50;
    map.set('d', 4, 1000); // a and b had expired: both go
    expect(map.size).toBe(2);
    map.set('e', 5, 1000);
    map.set('f', 6, 1000); // full of live entries: the oldest, c, goes
    expect(map.size).toBe(3);
    expect([map.get('c'), map.get('d'), map.get('e'), map.get('f')]).toEqual([undefined, 4, 5, 6]);
  });
});

describe('memoryReplayCache', () => {
  it('accepts a key once while it lasts, and again once expired', async () => {
    let now = 0;
    const cache = memoryReplayCache({ now: () => now });
    expect(await cache.add('jti-1', 100)).toBe(true);
    expect(await cache.add('jti-1', 100)).toBe(false);
    expect(await cache.add('jti-2', 100)).toBe(true);
    now = 100;
    expect(await cache.add('jti-1', 200)).toBe(true);
  });
});
