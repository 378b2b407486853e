import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from './generate.js';

describe('generateSigningKey', () => {
  it.each(['ES256', 'RS256', 'EdDSA'] as const)(
    'names a %s key by its RFC 7638 thumbprint, as jose computes it',
    async (alg) => {
      const key = await generateSigningKey(alg, 1_700_000_000);
      const { kid: _kid, alg: _alg, use: _use, ...publicJwk } = key.publicJwk;
      expect(key.kid).toBe(await calculateJwkThumbprint(publicJwk));
      expect([key.privateJwk.kid, key.publicJwk.kid, key.alg]).toEqual([key.kid, key.kid, alg]);
    },
  );
});
