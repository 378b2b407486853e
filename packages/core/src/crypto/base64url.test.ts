import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { base64urlFromBytes, base64urlInto, base64urlLength } from './base64url.js';

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

describe('base64urlInto', () => {
  it('writes the encoding of a slice at an offset and tells where it ended', () => {
    const bytes = crypto.getRandomValues(new Uint8Array(10));
    for (const [start, end] of [
      [0, 10],
      [1, 9],
      [2, 4],
      [3, 3],
    ] as const) {
      const target = new Uint8Array(2 + base64urlLength(end - start)).fill(33);
      const after = base64urlInto(bytes, start, end, target, 2);
      expect(after).toBe(target.length);
      expect(new TextDecoder().decode(target)).toBe(
        `!!${base64url.encode(bytes.subarray(start, end))}`,
      );
    }
  });
});
