import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { jwkThumbprint } from './thumbprint.js';

describe('jwkThumbprint', () => {
  it.each(['ES256', 'ES384', 'EdDSA', 'RS256'])(
    'is the RFC 7638 thumbprint jose computes, for an %s key',
    async (alg) => {
      const { publicKey } = await generateKeyPair(alg, { modulusLength: 2048 });
      const jwk = { ...(await exportJWK(publicKey)), kid: 'ignored', use: 'sig' };
      expect(jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(jwk));
    },
  );

  it('has none for another key type or a missing member', () => {
    expect(jwkThumbprint({ kty: 'oct', k: 'c2VjcmV0' })).toBeUndefined();
    expect(jwkThumbprint({ kty: 'EC', crv: 'P-256', x: 'x' })).toBeUndefined();
    expect(jwkThumbprint({ kty: 'RSA', n: 1, e: 'AQAB' })).toBeUndefined();
  });
});
