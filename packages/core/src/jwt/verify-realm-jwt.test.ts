import { expect, it } from 'vitest';
import { generateSigningKey } from '../keys/generate.js';
import { realmContext } from '../testing/realm-jwts.js';
import { signRealmJwt } from './sign.js';
import { verifyRealmJwt } from './verify-realm-jwt.js';

// The claim and algorithm rules live in the verifier contract (keys/webcrypto-verifier.test.ts).

it('counts only a true from the verifier: any other answer has not verified the token', async () => {
  const key = await generateSigningKey('ES256', 0);
  const vague = { verify: async () => 1 as unknown as boolean };
  const { context } = realmContext({ verifier: vague }, [key]);
  const token = await signRealmJwt(context, 'JWT', { iss: context.realm.issuer }, 'ES256');
  expect(await verifyRealmJwt(context, token, { typ: 'JWT' })).toBeUndefined();
});
