import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { base64urlFromBytes } from './base64url.js';

describe('base64urlFromBytes', () => {
  it('matches the standard unpadded base64url encoding for every length and byte value', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      expect(base64urlFromBytes(bytes)).toBe(base64url.encode(bytes));
    }
    const everyByte = Uint8Array.from({ length: 256 }, (_, n) => n);
    expect(base64urlFromBytes(everyByte)).toBe(base64url.encode(everyByte));
  });

  it('encodes inputs longer than one chunk', () => {
    const bytes = crypto.getRandomValues(new Uint8Array(20_000));
    expect(base64urlFromBytes(bytes)).toBe(base64url.encode(bytes));
  });

  it('uses the URL-safe alphabet without padding', () => {
    expect(base64urlFromBytes(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    expect(base64urlFromBytes(new Uint8Array([]))).toBe('');
  });
});
