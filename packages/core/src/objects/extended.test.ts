import { describe, expect, it } from 'vitest';
import { extended } from './extended.js';

describe('extended', () => {
  it('has the members of both, those of extra winning, in a new object', () => {
    const base = { a: 1, b: 2 };
    const result = extended(base, { b: 3, c: 4 });
    expect(result).toEqual({ a: 1, b: 3, c: 4 });
    expect(result).not.toBe(base);
    expect(base).toEqual({ a: 1, b: 2 });
  });

  it('takes an absent base as empty', () => {
    expect(extended(undefined, { c: 4 })).toEqual({ c: 4 });
  });

  it('keeps what a spread keeps: own enumerable members, undefined ones too', () => {
    const base = Object.create({ inherited: true }, { own: { value: 1, enumerable: true } });
    const result = extended(base, { absent: undefined });
    expect(result).toEqual({ own: 1, absent: undefined });
    expect('absent' in result).toBe(true);
    expect('inherited' in result).toBe(false);
  });
});
