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
