import { describe, expect, it } from 'vitest';
import { formatUserCode, newUserCode, normalizeUserCode, USER_CODE_ALPHABET } from './user-code.js';

describe('user codes', () => {
  it('are 8 characters of the consonant alphabet, shown as XXXX-XXXX', () => {
    const code = newUserCode();
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    expect(formatUserCode(code)).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  });

  it('use every character of the alphabet, none far more often than another', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 40_000; i++) {
      for (const char of newUserCode()) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join('')).toBe([...USER_CODE_ALPHABET].sort().join(''));
    // 320,000 draws, 16,000 expected per character (σ ≈ 124). A plain byte % 20 would give the
    // last 4 characters 15,000 each: 8σ away, where these bounds are 4σ.
    for (const count of counts.values()) expect(Math.abs(count - 16_000)).toBeLessThan(500);
  });

  it('read back whatever case, dashes and spaces the user typed', () => {
    expect(normalizeUserCode('wdjb-mjht')).toBe('WDJBMJHT');
    expect(normalizeUserCode(' WDJB MJHT ')).toBe('WDJBMJHT');
    expect(normalizeUserCode('W-D-J-B-M-J-H-T')).toBe('WDJBMJHT');
  });

  it('refuse what cannot be a code: vowels, digits, wrong lengths', () => {
    expect(normalizeUserCode('WDJB-MJHA')).toBeUndefined();
    expect(normalizeUserCode('WDJB-MJH1')).toBeUndefined();
    expect(normalizeUserCode('WDJB-MJH')).toBeUndefined();
    expect(normalizeUserCode('WDJB-MJHTT')).toBeUndefined();
    expect(normalizeUserCode('')).toBeUndefined();
  });
});
