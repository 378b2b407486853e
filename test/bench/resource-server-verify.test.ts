import { describe, expect, it } from 'vitest';
import { measureVerification, verificationLines } from '../../bench/src/resource-server-verify.js';

describe('the resource_server_verify bench', () => {
  it('prints both costs per call, fastest and median, and their ratios against the target', () => {
    const figures = {
      kit: { fastest: 62, median: 66 },
      jose: { fastest: 60, median: 50 },
      calls: 2000,
      rounds: 9,
    };
    expect(verificationLines(figures)).toEqual([
      'ES256 JWT access token, keys cached; CPU per call over 9 rounds of 2000 calls',
      '                          fastest     median',
      'resource-server verify    62.0 µs    66.0 µs',
      'jose jwtVerify            60.0 µs    50.0 µs',
      'ratio to jose: fastest 1.03× (within 1.2×), median 1.32× (MISSES 1.2×)',
    ]);
  });

  it('measures both with a token the kit admits', async () => {
    const figures = await measureVerification(5, 3);
    expect(figures).toMatchObject({ calls: 5, rounds: 3 });
    for (const side of [figures.kit, figures.jose]) {
      expect(side.fastest).toBeGreaterThan(0);
      expect(side.median).toBeGreaterThanOrEqual(side.fastest);
    }
  });
});
