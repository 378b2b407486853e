import { describe, expect, it } from 'vitest';
import { secretMatches, sha256Bytes, tokenDigest } from './digest.js';

describe('secretMatches', () => {
  const expected = sha256Bytes('correct horse battery staple');

  it('accepts exactly the secret whose digest it was given', () => {
    expect(secretMatches('correct horse battery staple', expected)).toBe(true);
  });

  it.each([
    ['a different secret', 'incorrect horse battery staple'],
    ['a prefix', 'correct horse'],
    ['a longer string', 'correct horse battery staple!'],
    ['the empty string', ''],
    ['different case', 'Correct horse battery staple'],
  ])('refuses %s', (_, presented) => {
    expect(secretMatches(presented, expected)).toBe(false);
  });

  it('refuses anything against a digest of the wrong length', () => {
    expect(secretMatches('', new Uint8Array(0))).toBe(false);
    expect(secretMatches('x', expected.slice(0, 31))).toBe(false);
  });
});

describe('tokenDigest', () => {
  it('is the unpadded base64url SHA-256 of the token (RFC 6234 test vector for "abc")', () => {
    expect(tokenDigest('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('hashes the UTF-8 bytes of the token', () => {
    expect(tokenDigest('é')).not.toBe(tokenDigest('e'));
    expect(tokenDigest('é')).toHaveLength(43);
  });
});
