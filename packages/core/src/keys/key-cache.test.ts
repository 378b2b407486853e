import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';

describe('KeyCache', () => {
  it('makes a value once per key material, found again through a copy of it', () => {
    const cache = new KeyCache<number>();
    let made = 0;
    const valueFor = (handle: object, jwk: object) =>
      cache.get(
        handle,
        () => jwk,
        () => ++made,
      );
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k1' };
    expect(valueFor(jwk, jwk)).toBe(1);
    expect(valueFor(jwk, jwk)).toBe(1);
    expect(valueFor({ ...jwk }, { ...jwk })).toBe(1);
    // The same kid over other material is another key.
    expect(valueFor({}, { ...jwk, x: 'def' })).toBe(2);
  });

  it('reads the material of a handle only the first time it sees it', () => {
    const cache = new KeyCache<string>();
    const handle = {};
    let reads = 0;
    const material = () => {
      reads++;
      return { kty: 'EC', x: 'x' };
    };
    cache.get(handle, material, () => 'made');
    cache.get(handle, material, () => 'made again');
    expect(reads).toBe(1);
  });

  it('keeps at most its limit, handing the oldest value to onEvict', () => {
    const evicted: string[] = [];
    const cache = new KeyCache<string>(2, (value) => evicted.push(value));
    const key = (x: string) => () => ({ kty: 'OKP', x });
    cache.get({}, key('a'), () => 'A');
    cache.get({}, key('b'), () => 'B');
    cache.get({}, key('c'), () => 'C');
    expect(evicted).toEqual(['A']);
    expect(cache.get({}, key('a'), () => 'A again')).toBe('A again');
    expect(evicted).toEqual(['A', 'B']);
  });

  it('forgets a value that failed, but not one made since for the same key', () => {
    const evicted: string[] = [];
    const cache = new KeyCache<string>(10, (value) => evicted.push(value));
    const jwk = { kty: 'EC', x: 'x', y: 'y' };
    const handle = {};
    cache.get(
      handle,
      () => jwk,
      () => 'failed import',
    );
    cache.forget(handle, 'failed import');
    expect(evicted).toEqual(['failed import']);
    expect(
      cache.get(
        handle,
        () => jwk,
        () => 'retried',
      ),
    ).toBe('retried');
    // A late failure of the first value leaves the retried one in place.
    cache.forget(handle, 'failed import');
    expect(
      cache.get(
        {},
        () => jwk,
        () => 'third',
      ),
    ).toBe('retried');
  });
});
