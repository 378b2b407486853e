import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { keyFitsAlgorithm } from './key-fits-algorithm.js';

/** A modulus of exactly `bits` bits (its top bit set), base64url as in a JWK. */
const modulus = (bits: number, leadingZeros = 0) => {
  const bytes = new Uint8Array(leadingZeros + Math.ceil(bits / 8)).fill(0xff, leadingZeros);
  bytes[leadingZeros] = 0xff >> ((8 - (bits % 8)) % 8);
  return base64url.encode(bytes);
};

describe('keyFitsAlgorithm', () => {
  const rsa = (n: string) => ({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256' });

  it('takes RSA moduli of 2048 bits and more, counted in bits and without leading zeros', () => {
    expect(keyFitsAlgorithm(rsa(modulus(2048)), 'RS256')).toBe(true);
    expect(keyFitsAlgorithm(rsa(modulus(4096)), 'RS256')).toBe(true);
    expect(keyFitsAlgorithm(rsa(modulus(2047)), 'RS256')).toBe(false);
    expect(keyFitsAlgorithm(rsa(modulus(2041)), 'RS256')).toBe(false);
    expect(keyFitsAlgorithm(rsa(modulus(2040, 2)), 'RS256')).toBe(false);
    for (const n of ['', '!!', undefined])
      expect(keyFitsAlgorithm(rsa(n as string), 'RS256')).toBe(false);
  });

  it('wants the key’s own alg, its type and curve, and a use and key_ops that allow verifying', () => {
    const ec = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', alg: 'ES256' };
    expect(keyFitsAlgorithm(ec, 'ES256')).toBe(true);
    expect(keyFitsAlgorithm({ ...ec, use: 'sig', key_ops: ['verify'] }, 'ES256')).toBe(true);
    for (const changed of [
      { alg: 'RS256' },
      { crv: 'P-384' },
      { kty: 'OKP' },
      { use: 'enc' },
      { key_ops: ['sign'] },
      { key_ops: 'verify' },
    ])
      expect(keyFitsAlgorithm({ ...ec, ...changed } as never, 'ES256')).toBe(false);
    const okp = { kty: 'OKP', crv: 'Ed25519', x: 'x', alg: 'EdDSA' };
    expect(keyFitsAlgorithm(okp, 'EdDSA')).toBe(true);
    expect(keyFitsAlgorithm({ ...okp, crv: 'X25519' }, 'EdDSA')).toBe(false);
    expect(keyFitsAlgorithm({ ...rsa(modulus(2048)), alg: 'PS256' }, 'PS256')).toBe(true);
  });
});
