import {
  base64url,
  CompactSign,
  type CryptoKey,
  errors,
  type GenerateKeyPairResult,
  generateKeyPair,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASYMMETRIC_ASSERTION_ALGORITHMS } from '../config/client.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config/realm.js';
import type { RealmContext } from '../context.js';
import { signRealmJwt } from '../jwt/sign.js';
import { verifyJwt } from '../jwt/verify-jwt.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import { generateSigningKey } from '../keys/generate.js';
import type { JwsVerifier, VerificationAlgorithm } from '../keys/jws-verifier.js';
import type { SigningKey } from '../keys/signing-key.js';
import { claims, jws, NOW, realmContext, twoSigningKeys, weakRsaKey } from './realm-jwts.js';

const encoder = new TextEncoder();

/** Another algorithm whose keys are of the same type, to present a key imported for another. */
const SIBLING: Record<VerificationAlgorithm, VerificationAlgorithm> = {
  RS256: 'PS256',
  RS384: 'PS384',
  RS512: 'PS512',
  PS256: 'RS256',
  PS384: 'RS384',
  PS512: 'RS512',
  ES256: 'ES384',
  ES384: 'ES512',
  ES512: 'ES256',
  EdDSA: 'ES256',
  Ed25519: 'ES256',
};

/** A compact JWS of `payload` by `privateKey` under `alg`, as a client would make it. */
const signed = (alg: string, privateKey: CryptoKey, payload: object = { sub: 'alice' }) =>
  new CompactSign(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg, typ: 'JWT' })
    .sign(privateKey);

/** A JWS's signing input and signature as the bytes `verify` takes. */
function parts(token: string) {
  const [header, payload, signature = ''] = token.split('.');
  return {
    input: encoder.encode(`${header}.${payload}`),
    signature: base64url.decode(signature) as Uint8Array<ArrayBuffer>,
  };
}

/**
 * The `JwsVerifier` contract: every algorithm the core verifies, a good signature verified and a
 * changed, foreign, cut or empty one not (without throwing); through the core's JWT check, an
 * algorithm not allowed, a key of another algorithm and `none` refused; and the realm's own
 * tokens verified with jose's rules (`alg` pinned per key, never `none`; `typ`, issuer and times
 * checked). Run it against a verifier of your own with vitest:
 * `describeVerifierContract('my verifier', () => myVerifier())`.
 */
export function describeVerifierContract(name: string, makeVerifier: () => JwsVerifier): void {
  describe(`JwsVerifier contract: ${name}`, () => {
    describe.each(ASYMMETRIC_ASSERTION_ALGORITHMS)('%s', (alg: VerificationAlgorithm) => {
      let pair: GenerateKeyPairResult;
      let other: GenerateKeyPairResult;
      let sibling: GenerateKeyPairResult;
      beforeAll(async () => {
        [pair, other, sibling] = await Promise.all([
          generateKeyPair(alg),
          generateKeyPair(alg),
          generateKeyPair(SIBLING[alg]),
        ]);
      });

      it('verifies a good signature; never a changed, foreign, cut or empty one', async () => {
        const verifier = makeVerifier();
        const verify = (token: string, key = pair.publicKey) => {
          const { input, signature } = parts(token);
          return verifier.verify(alg, key, input, signature);
        };
        const token = await signed(alg, pair.privateKey);
        const [header, , signature] = token.split('.');
        const changed = `${header}.${base64url.encode('{"sub":"mallory"}')}.${signature}`;
        const flipped = parts(token);
        flipped.signature[0] = (flipped.signature[0] ?? 0) ^ 1;
        expect(await verify(token)).toBe(true);
        expect(await verify(changed)).toBe(false);
        expect(await verifier.verify(alg, pair.publicKey, flipped.input, flipped.signature)).toBe(
          false,
        );
        expect(await verify(token, other.publicKey)).toBe(false);
        expect(await verify(token.slice(0, -8))).toBe(false);
        expect(await verify(`${token.split('.').slice(0, 2).join('.')}.`)).toBe(false);
      });

      it('through verifyJwt: the claims of a good token; refused: another alg, a key for another alg, none, a bad signature', async () => {
        const verifier = makeVerifier();
        const check = (
          token: string,
          key: CryptoKey = pair.publicKey,
          algorithms: string[] = [alg],
        ) => verifyJwt(verifier, token, key, { algorithms, typ: 'JWT' });
        const token = await signed(alg, pair.privateKey);
        await expect(check(token)).resolves.toMatchObject({ payload: { sub: 'alice' } });
        await expect(check(token, pair.publicKey, [SIBLING[alg]])).rejects.toBeInstanceOf(
          errors.JOSEAlgNotAllowed,
        );
        await expect(check(token, sibling.publicKey)).rejects.toBeInstanceOf(TypeError);
        const [, payload] = token.split('.');
        const none = `${base64url.encode('{"alg":"none","typ":"JWT"}')}.${payload}.`;
        await expect(check(none, pair.publicKey, [alg, 'none'])).rejects.toBeInstanceOf(
          errors.JOSEAlgNotAllowed,
        );
        await expect(check(await signed(alg, other.privateKey))).rejects.toBeInstanceOf(
          errors.JWSSignatureVerificationFailed,
        );
      });
    });

    describe.each(SIGNING_ALGORITHMS)('realm tokens, %s', (alg: SigningAlgorithm) => {
      let key: SigningKey;
      let other: SigningKey;
      beforeAll(async () => {
        [key, other] = await twoSigningKeys(alg);
      });

      it('verifyRealmJwt returns the claims of a token the realm signed, and nothing changed', async () => {
        const { context } = realmContext({ verifier: makeVerifier() }, [key]);
        const token = await signRealmJwt(context, 'JWT', claims(), alg);
        expect(await verifyRealmJwt(context, token, { typ: 'JWT' })).toEqual(claims());
        const [header, , signature = ''] = token.split('.');
        const changed = `${header}.${base64url.encode(JSON.stringify(claims({ sub: 'mallory' })))}.${signature}`;
        const foreign = await jws(other, { alg, typ: 'JWT', kid: key.kid }, claims());
        for (const bad of [
          changed,
          foreign,
          token.slice(0, -4),
          `${header}.${token.split('.')[1]}.`,
        ])
          expect(await verifyRealmJwt(context, bad, { typ: 'JWT' })).toBeUndefined();
      });
    });

    describe('verifyRealmJwt', () => {
      let key: SigningKey;
      let second: SigningKey;
      let rsa: SigningKey;
      beforeAll(async () => {
        [key, second, rsa] = await Promise.all([
          generateSigningKey('ES256', NOW),
          generateSigningKey('ES256', NOW),
          generateSigningKey('RS256', NOW),
        ]);
      });
      const verify = (context: RealmContext, token: string, allowExpired = false) =>
        verifyRealmJwt(context, token, { typ: 'JWT', allowExpired });

      it('refuses alg none, an algorithm the key is not pinned to, and a crit header', async () => {
        const { context } = realmContext({ verifier: makeVerifier() }, [key, rsa]);
        const payload = base64url.encode(JSON.stringify(claims()));
        const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`;
        // Signed by the RSA key but naming the ES256 key's kid: that key only verifies ES256.
        const swapped = await jws(rsa, { alg: 'RS256', typ: 'JWT', kid: key.kid }, claims());
        // A good ES256 signature under a header that names another algorithm.
        const mislabelled = await jws(key, { alg: 'RS256', typ: 'JWT', kid: key.kid }, claims());
        const crit = await jws(
          key,
          { alg: 'ES256', typ: 'JWT', kid: key.kid, crit: ['b64'], b64: true },
          claims(),
        );
        for (const token of [none, swapped, mislabelled, crit])
          expect(await verify(context, token)).toBeUndefined();
        // The RSA key verifies its own tokens.
        expect(
          await verify(
            context,
            await jws(rsa, { alg: 'RS256', typ: 'JWT', kid: rsa.kid }, claims()),
          ),
        ).toEqual(claims());
      });

      it('refuses, as jose, a token without kid when several keys of its alg are published', async () => {
        const token = await jws(key, { alg: 'ES256', typ: 'JWT' }, claims());
        const alone = realmContext({ verifier: makeVerifier() }, [key, rsa]);
        expect(await verify(alone.context, token)).toEqual(claims());
        const rotating = realmContext({ verifier: makeVerifier() }, [second, key]);
        expect(await verify(rotating.context, token)).toBeUndefined();
        // With its kid it verifies while both are published.
        const named = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(rotating.context, named)).toEqual(claims());
      });

      it('refuses a key unfit for the algorithm: RSA under 2048 bits, another type or curve', async () => {
        const weak = await weakRsaKey();
        const { context } = realmContext({ verifier: makeVerifier() }, [weak]);
        const token = await jws(weak, { alg: 'RS256', typ: 'JWT', kid: weak.kid }, claims());
        expect(await verify(context, token)).toBeUndefined();

        const okp = await generateSigningKey('EdDSA', NOW);
        const labelled: SigningKey = { ...key, publicJwk: { ...key.publicJwk, crv: 'P-384' } };
        const typed: SigningKey = { ...okp, publicJwk: { ...okp.publicJwk, kty: 'EC' } };
        for (const [signing, alg] of [
          [labelled, 'ES256'],
          [typed, 'EdDSA'],
        ] as const) {
          const mislabelled = realmContext({ verifier: makeVerifier() }, [signing]);
          const signed = await jws(signing, { alg, typ: 'JWT', kid: signing.kid }, claims());
          expect(await verify(mislabelled.context, signed)).toBeUndefined();
        }
      });

      it('checks typ as jose does: case and the application/ prefix aside', async () => {
        const { context } = realmContext({ verifier: makeVerifier() }, [key]);
        const typed = (typ?: string) =>
          jws(key, { alg: 'ES256', kid: key.kid, ...(typ === undefined ? {} : { typ }) }, claims());
        expect(await verify(context, await typed('application/jwt'))).toEqual(claims());
        expect(await verify(context, await typed('jwt'))).toEqual(claims());
        for (const typ of ['at+jwt', 'logout+jwt', undefined])
          expect(await verify(context, await typed(typ))).toBeUndefined();
      });

      it('checks the issuer and the time claims; an expired token only when allowed', async () => {
        const { context } = realmContext({ verifier: makeVerifier() }, [key]);
        const token = (extra: Record<string, unknown>) =>
          jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims(extra));
        for (const extra of [
          { iss: 'https://id.example.com/oauth/other' },
          { iss: undefined },
          { nbf: NOW + 1 },
          { nbf: '0' },
          { iat: 'yesterday' },
          { exp: String(NOW + 600) },
        ])
          expect(await verify(context, await token(extra), true)).toBeUndefined();
        expect(await verify(context, await token({ nbf: NOW }))).toEqual(claims({ nbf: NOW }));

        const expired = await token({ exp: NOW });
        expect(await verify(context, expired)).toBeUndefined();
        expect(await verify(context, expired, true)).toEqual(claims({ exp: NOW }));
      });

      it('refuses what is not a compact JWS of a JSON object', async () => {
        const { context } = realmContext({ verifier: makeVerifier() }, [key]);
        const token = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
        const [header, payload, signature] = token.split('.');
        const arrayPayload = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, []);
        for (const bad of [
          '',
          'garbage',
          `${header}.${payload}`,
          `${token}.extra`,
          `${header}.${payload}.${signature}=`,
          `${header}.${payload}!.${signature}`,
          `${base64url.encode('not json')}.${payload}.${signature}`,
          arrayPayload,
        ])
          expect(await verify(context, bad)).toBeUndefined();
      });

      it('reads the keys afresh once for a kid it does not know, not for one under another alg', async () => {
        const { context, reads } = realmContext({ verifier: makeVerifier() }, [key], []);
        const token = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(context, token)).toEqual(claims());
        expect(reads).toEqual([{}, { fresh: true }]);

        const unknown = await jws(key, { alg: 'ES256', typ: 'JWT', kid: 'nobody' }, claims());
        expect(await verify(context, unknown)).toBeUndefined();
        expect(reads).toHaveLength(4);

        const known = realmContext({ verifier: makeVerifier() }, [key]);
        const otherAlg = await jws(rsa, { alg: 'RS256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(known.context, otherAlg)).toBeUndefined();
        expect(known.reads).toEqual([{}]);
      });
    });
  });
}
