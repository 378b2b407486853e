import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { randomId } from './random.js';

describe('randomId', () => {
  it('encodes the requested number of bytes, 32 by default', () => {
    expect(base64url.decode(randomId())).toHaveLength(32);
    expect(base64url.decode(randomId(16))).toHaveLength(16);
    expect(randomId(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('never hands out the same bytes twice, across many refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => randomId(i % 2 === 0 ? 16 : 33));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves requests larger than its pool', () => {
    const a = base64url.decode(randomId(10_000));
    const b = base64url.decode(randomId(10_000));
    expect(a).toHaveLength(10_000);
    expect(a).not.toEqual(b);
  });
});
