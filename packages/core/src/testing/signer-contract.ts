import { compactVerify, importJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config/realm.js';
import { signRealmJwt } from '../jwt/sign.js';
import type { JwsSigner, SigningKey } from '../keys/signing-key.js';
import { claims, realmContext, twoSigningKeys } from './realm-jwts.js';

/**
 * The `JwsSigner` contract: what the core needs of a signer. Run it against a signer of your own
 * (a KMS, an HSM) with vitest: `describeSignerContract('my signer', () => mySigner())`.
 */
export function describeSignerContract(name: string, makeSigner: () => JwsSigner): void {
  describe(`JwsSigner contract: ${name}`, () => {
    describe.each(SIGNING_ALGORITHMS)('%s', (alg: SigningAlgorithm) => {
      let key: SigningKey;
      let other: SigningKey;
      beforeAll(async () => {
        [key, other] = await twoSigningKeys(alg);
      });

      it('signs what jose verifies with the public key, and nothing else', async () => {
        const { context } = realmContext({ signer: makeSigner() }, [key]);
        const token = await signRealmJwt(context, 'JWT', claims(), alg);
        const verified = await compactVerify(token, await importJWK(key.publicJwk, alg), {
          algorithms: [alg],
        });
        expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(claims());
        await expect(compactVerify(token, await importJWK(other.publicJwk, alg))).rejects.toThrow();
      });

      it('signs with each key’s own private key: a kid or public half shared tells nothing', async () => {
        const signer = makeSigner();
        const twin: SigningKey = {
          ...other,
          kid: key.kid,
          privateJwk: { ...other.privateJwk, kid: key.kid },
          publicJwk: { ...other.publicJwk, kid: key.kid },
        };
        // A key store's mistake (or a tenant's copy): another key's public half beside this one.
        const mismatched: SigningKey = { ...other, publicJwk: key.publicJwk };
        for (const [signing, verifying] of [
          [key, key],
          [twin, other],
          [mismatched, other],
          [key, key],
        ] as const) {
          const { context } = realmContext({ signer }, [signing]);
          const token = await signRealmJwt(context, 'JWT', claims(), alg);
          const publicKey = await importJWK(verifying.publicJwk, alg);
          await expect(compactVerify(token, publicKey)).resolves.toBeDefined();
        }
      });
    });
  });
}
