import { generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { fitsRsaModulus } from './rsa-signature-length.js';

describe('fitsRsaModulus', () => {
  it.each(['RS256', 'PS384'] as const)(
    'takes a %s signature exactly as long as the modulus, nothing shorter or longer',
    async (alg) => {
      const { publicKey } = await generateKeyPair(alg, { modulusLength: 2048 });
      expect(fitsRsaModulus(publicKey, new Uint8Array(256))).toBe(true);
      expect(fitsRsaModulus(publicKey, new Uint8Array(255))).toBe(false);
      expect(fitsRsaModulus(publicKey, new Uint8Array(257))).toBe(false);
    },
  );

  it.each(['ES256', 'EdDSA'] as const)('leaves %s signatures to the verifier', async (alg) => {
    const { publicKey } = await generateKeyPair(alg);
    expect(fitsRsaModulus(publicKey, new Uint8Array(63))).toBe(true);
  });
});
