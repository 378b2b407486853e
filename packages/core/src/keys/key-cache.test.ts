import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';

describe('KeyCache', () => {
  it('makes a value once per public key, found again through a copy of it', () => {
    const cache = new KeyCache<number>();
    let made = 0;
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k1' };
    expect(cache.get(jwk, jwk, () => ++made)).toBe(1);
    expect(cache.get(jwk, jwk, () => ++made)).toBe(1);
    expect(cache.get({ ...jwk }, { ...jwk }, () => ++made)).toBe(1);
    // The same kid over other material is another key.
    expect(cache.get({}, { ...jwk, x: 'def' }, () => ++made)).toBe(2);
  });

  it('keeps at most its limit, handing the oldest value to onEvict', () => {
    const evicted: string[] = [];
    const cache = new KeyCache<string>(2, (value) => evicted.push(value));
    const key = (x: string) => ({ kty: 'OKP', x });
    cache.get({}, key('a'), () => 'A');
    cache.get({}, key('b'), () => 'B');
    cache.get({}, key('c'), () => 'C');
    expect(evicted).toEqual(['A']);
    expect(cache.get({}, key('a'), () => 'A again')).toBe('A again');
    expect(evicted).toEqual(['A', 'B']);
  });

  it('makes a forgotten value again, even for the object it was first made for', () => {
    const cache = new KeyCache<string>();
    const jwk = { kty: 'EC', x: 'x', y: 'y' };
    cache.get(jwk, jwk, () => 'failed import');
    cache.forget(jwk);
    expect(cache.get(jwk, jwk, () => 'retried')).toBe('retried');
  });
});
