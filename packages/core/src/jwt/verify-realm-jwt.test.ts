import { expect, it } from 'vitest';
import type { RealmContext } from '../context.js';
import { generateSigningKey } from '../keys/generate.js';
import { webCryptoSigner } from '../keys/webcrypto-signer.js';
import { describeSignerContract } from '../testing/signer-contract.js';
import { signRealmJwt } from './sign.js';
import { verifyRealmJwt } from './verify-realm-jwt.js';

// The claim and algorithm rules live in the signer contract, run here through both paths: the
// signer's own verify, and the core's WebCrypto fallback for a signer without one.
describeSignerContract('webCryptoSigner', webCryptoSigner);
describeSignerContract('a signer without verify', () => ({ sign: webCryptoSigner().sign }));

it('counts only a true from the signer: any other answer has not verified the token', async () => {
  const key = await generateSigningKey('ES256', 0);
  const vague = { sign: webCryptoSigner().sign, verify: async () => 1 as unknown as boolean };
  const context = {
    realm: { issuer: 'https://id.example.com', config: { signing_alg: 'ES256' } },
    now: () => 0,
    signer: vague,
    keys: { currentKey: async () => key, publicKeys: async () => [key.publicJwk] },
  } as unknown as RealmContext;
  const token = await signRealmJwt(context, 'JWT', { iss: 'https://id.example.com' }, 'ES256');
  expect(await verifyRealmJwt(context, token, { typ: 'JWT' })).toBeUndefined();
});
