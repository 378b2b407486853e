import { base64url, CompactSign, compactVerify, exportJWK, importJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config/realm.js';
import type { RealmContext } from '../context.js';
import { signRealmJwt } from '../jwt/sign.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import { generateSigningKey } from '../keys/generate.js';
import type { JwsSigner, PublicJwk, SigningKey } from '../keys/signing-key.js';
import { webCryptoSigner } from '../keys/webcrypto-signer.js';

const ISSUER = 'https://id.example.com/oauth/demo';
const NOW = 1_900_000_000;
const encoder = new TextEncoder();

/** A realm context over `keys`, the first one current; `published` is what publicKeys answers. */
function realmContext(signer: JwsSigner, keys: SigningKey[], published = keys) {
  const reads: Array<{ fresh?: boolean }> = [];
  const context = {
    realm: { issuer: ISSUER, config: { signing_alg: keys[0]?.alg } },
    now: () => NOW * 1000,
    signer,
    keys: {
      currentKey: async () => keys[0],
      publicKeys: async (_realm: unknown, options: { fresh?: boolean } = {}) => {
        reads.push(options);
        return (options.fresh ? keys : published).map((key) => key.publicJwk);
      },
    },
  } as unknown as RealmContext;
  return { context, reads };
}

/** A compact JWS with any header, signed by `key` through WebCrypto. */
async function jws(key: SigningKey, header: object, payload: object): Promise<string> {
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  const signature = await webCryptoSigner().sign(key, encoder.encode(input));
  return `${input}.${base64url.encode(signature)}`;
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  sub: 'alice',
  aud: 'web-app',
  iat: NOW - 10,
  exp: NOW + 600,
  ...extra,
});

/** A JWS's signing input and signature as the bytes `verify` takes. */
function parts(token: string) {
  const [header, payload, signature = ''] = token.split('.');
  return {
    input: encoder.encode(`${header}.${payload}`),
    signature: base64url.decode(signature) as Uint8Array<ArrayBuffer>,
  };
}

/** An RSA key of 1024 bits, which JWS (RFC 7518 §3.3) does not allow, as a realm key. */
async function weakRsaKey(): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 1024,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  );
  const kid = 'weak';
  return {
    kid,
    alg: 'RS256',
    privateJwk: { ...(await exportJWK(pair.privateKey)), kid, alg: 'RS256' },
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' },
    createdAt: NOW,
  };
}

/**
 * The `JwsSigner` contract: what the core needs of a signer, and the realm's own tokens verified
 * through it with jose's rules (`alg` pinned per key, never `none`; `typ`, issuer and times
 * checked). Run it against a signer of your own (a KMS, an HSM) with vitest:
 * `describeSignerContract('my signer', () => mySigner())`. For a signer without `verify` the
 * cases of that method are left out; the core then verifies through WebCrypto, and the rest
 * still applies.
 */
export function describeSignerContract(name: string, makeSigner: () => JwsSigner): void {
  // The cases of `verify` exist only for a signer that has it (not reported as skipped).
  const itOfVerify = makeSigner().verify === undefined ? () => {} : it;

  describe(`JwsSigner contract: ${name}`, () => {
    describe.each(SIGNING_ALGORITHMS)('%s', (alg: SigningAlgorithm) => {
      let key: SigningKey;
      let other: SigningKey;
      beforeAll(async () => {
        [key, other] = await Promise.all([
          generateSigningKey(alg, NOW),
          generateSigningKey(alg, NOW),
        ]);
      });

      it('signs what jose verifies with the public key, and nothing else', async () => {
        const { context } = realmContext(makeSigner(), [key]);
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
          const { context } = realmContext(signer, [signing]);
          const token = await signRealmJwt(context, 'JWT', claims(), alg);
          const publicKey = await importJWK(verifying.publicJwk, alg);
          await expect(compactVerify(token, publicKey)).resolves.toBeDefined();
        }
      });

      itOfVerify(
        'verifies its own and jose’s signatures; never a changed, foreign, cut or empty one',
        async () => {
          const signer = makeSigner();
          const verify = (token: string, publicJwk = key.publicJwk) => {
            const { input, signature } = parts(token);
            return signer.verify?.(publicJwk as PublicJwk, input, signature);
          };
          const { context } = realmContext(signer, [key]);
          const token = await signRealmJwt(context, 'JWT', claims(), alg);
          const [header, , signature] = token.split('.');
          const changed = `${header}.${base64url.encode('{"sub":"mallory"}')}.${signature}`;
          const joseSigned = await new CompactSign(encoder.encode('{"sub":"bob"}'))
            .setProtectedHeader({ alg })
            .sign(await importJWK(key.privateJwk, alg));
          expect(await verify(token)).toBe(true);
          expect(await verify(joseSigned)).toBe(true);
          expect(await verify(changed)).toBe(false);
          expect(await verify(token, { ...other.publicJwk, kid: key.kid })).toBe(false);
          expect(await verify(token.slice(0, -8))).toBe(false);
          expect(await verify(`${token.split('.').slice(0, 2).join('.')}.`)).toBe(false);
        },
      );

      itOfVerify('answers false, without throwing, for a key it cannot use', async () => {
        const signer = makeSigner();
        const { context } = realmContext(signer, [key]);
        const { input, signature } = parts(await signRealmJwt(context, 'JWT', claims(), alg));
        const broken = { ...key.publicJwk, x: 'AAAA', n: 'AAAA' } as PublicJwk;
        expect(await signer.verify?.(broken, input, signature)).toBe(false);
      });

      it('verifyRealmJwt returns the claims of a token the realm signed, and nothing changed', async () => {
        const { context } = realmContext(makeSigner(), [key]);
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
        const { context } = realmContext(makeSigner(), [key, rsa]);
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
        const alone = realmContext(makeSigner(), [key, rsa]);
        expect(await verify(alone.context, token)).toEqual(claims());
        const rotating = realmContext(makeSigner(), [second, key]);
        expect(await verify(rotating.context, token)).toBeUndefined();
        // With its kid it verifies while both are published.
        const named = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(rotating.context, named)).toEqual(claims());
      });

      it('refuses a key unfit for the algorithm: RSA under 2048 bits, another type or curve', async () => {
        const weak = await weakRsaKey();
        const { context } = realmContext(makeSigner(), [weak]);
        const token = await jws(weak, { alg: 'RS256', typ: 'JWT', kid: weak.kid }, claims());
        expect(await verify(context, token)).toBeUndefined();

        const okp = await generateSigningKey('EdDSA', NOW);
        const labelled: SigningKey = { ...key, publicJwk: { ...key.publicJwk, crv: 'P-384' } };
        const typed: SigningKey = { ...okp, publicJwk: { ...okp.publicJwk, kty: 'EC' } };
        for (const [signing, alg] of [
          [labelled, 'ES256'],
          [typed, 'EdDSA'],
        ] as const) {
          const mislabelled = realmContext(makeSigner(), [signing]);
          const signed = await jws(signing, { alg, typ: 'JWT', kid: signing.kid }, claims());
          expect(await verify(mislabelled.context, signed)).toBeUndefined();
        }
      });

      it('checks typ as jose does: case and the application/ prefix aside', async () => {
        const { context } = realmContext(makeSigner(), [key]);
        const typed = (typ?: string) =>
          jws(key, { alg: 'ES256', kid: key.kid, ...(typ === undefined ? {} : { typ }) }, claims());
        expect(await verify(context, await typed('application/jwt'))).toEqual(claims());
        expect(await verify(context, await typed('jwt'))).toEqual(claims());
        for (const typ of ['at+jwt', 'logout+jwt', undefined])
          expect(await verify(context, await typed(typ))).toBeUndefined();
      });

      it('checks the issuer and the time claims; an expired token only when allowed', async () => {
        const { context } = realmContext(makeSigner(), [key]);
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
        const { context } = realmContext(makeSigner(), [key]);
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
        const { context, reads } = realmContext(makeSigner(), [key], []);
        const token = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(context, token)).toEqual(claims());
        expect(reads).toEqual([{}, { fresh: true }]);

        const unknown = await jws(key, { alg: 'ES256', typ: 'JWT', kid: 'nobody' }, claims());
        expect(await verify(context, unknown)).toBeUndefined();
        expect(reads).toHaveLength(4);

        const known = realmContext(makeSigner(), [key]);
        const otherAlg = await jws(rsa, { alg: 'RS256', typ: 'JWT', kid: key.kid }, claims());
        expect(await verify(known.context, otherAlg)).toBeUndefined();
        expect(known.reads).toEqual([{}]);
      });
    });
  });
}
