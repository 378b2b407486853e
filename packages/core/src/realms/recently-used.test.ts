import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from './recently-used.js';

describe('RecentlyUsed', () => {
  it('keeps at most its limit, forgetting the least recently used first', () => {
    const kept = new RecentlyUsed<number>(2);
    kept.set('a', 1);
    kept.set('b', 2);
    expect(kept.get('a')).toBe(1);
    kept.set('c', 3);
    expect(kept.size).toBe(2);
    expect(kept.get('b')).toBeUndefined();
    expect(kept.get('a')).toBe(1);
    expect(kept.get('c')).toBe(3);
  });

  it('counts setting an entry again as a use, without growing', () => {
    const kept = new RecentlyUsed<number>(2);
    kept.set('a', 1);
    kept.set('b', 2);
    kept.set('a', 10);
    kept.set('c', 3);
    expect(kept.get('a')).toBe(10);
    expect(kept.get('b')).toBeUndefined();
  });

  it('keeps the order through repeated reads of the newest entry and a deletion of it', () => {
    const kept = new RecentlyUsed<number>(2);
    kept.set('a', 1);
    kept.set('b', 2);
    expect([kept.get('b'), kept.get('b'), kept.get('a'), kept.get('a')]).toEqual([2, 2, 1, 1]);
    kept.set('c', 3);
    expect(kept.get('b')).toBeUndefined();
    kept.delete('c');
    kept.set('d', 4);
    // 'a' is still held and now read: it moves to the end, so 'd' is the one to go next.
    expect(kept.get('a')).toBe(1);
    kept.set('e', 5);
    expect([kept.get('a'), kept.get('d'), kept.get('e')]).toEqual([1, undefined, 5]);
  });

  it('forgets an entry on request', () => {
    const kept = new RecentlyUsed<number>(2);
    kept.set('a', 1);
    expect(kept.delete('a')).toBe(true);
    expect(kept.get('a')).toBeUndefined();
    expect(kept.delete('a')).toBe(false);
  });

  it('refuses a limit below one', () => {
    expect(() => new RecentlyUsed(0)).toThrow(RangeError);
  });
});
