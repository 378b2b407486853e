import { describe, expect, it } from 'vitest';
import { tokenDigest } from '../crypto/digest.js';
import { accessTokenRecordId, looksLikeJwt } from './access-token.js';

describe('accessTokenRecordId', () => {
  it('keys a JWT by its jti', () => {
    expect(accessTokenRecordId('demo', 'h.p.s', 'the-jti')).toBe('demo/the-jti');
  });

  it('keys an opaque token by its digest, never the token itself', () => {
    const token = 'opaque-token-value';
    const id = accessTokenRecordId('demo', token);
    expect(id).toBe(`demo/${tokenDigest(token)}`);
    expect(id).not.toContain(token);
  });

  it('keeps realms apart', () => {
    expect(accessTokenRecordId('a', 'tok')).not.toBe(accessTokenRecordId('b', 'tok'));
  });
});

describe('looksLikeJwt', () => {
  it.each([
    ['h.p.s', true],
    ['..', true],
    ['opaque', false],
    ['a.b', false],
    ['a.b.c.d.e', false],
  ])('%s → %s', (token, expected) => {
    expect(looksLikeJwt(token)).toBe(expected);
  });
});
