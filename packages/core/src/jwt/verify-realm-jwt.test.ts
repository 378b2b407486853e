import { base64url } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config/realm.js';
import type { RealmContext } from '../context.js';
import { generateSigningKey } from '../keys/generate.js';
import type { JwsSigner, SigningKey } from '../keys/signing-key.js';
import { webCryptoSigner } from '../keys/webcrypto-signer.js';
import { signRealmJwt } from './sign.js';
import { verifyRealmJwt } from './verify-realm-jwt.js';

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
        return options.fresh ? keys.map((key) => key.publicJwk) : published.map((k) => k.publicJwk);
      },
    },
  } as unknown as RealmContext;
  return { context, reads };
}

/** A compact JWS with any header, signed by `key` (or carrying `signature` as given). */
async function jws(
  key: SigningKey,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<string> {
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

/** The core's own signer, and a signer without `verify` (the core then uses WebCrypto itself). */
const signers: Array<[string, () => JwsSigner]> = [
  ['webCryptoSigner', webCryptoSigner],
  ['a signer without verify', () => ({ sign: webCryptoSigner().sign })],
];

describe.each(signers)('verifyRealmJwt with %s', (_name, makeSigner) => {
  describe.each(SIGNING_ALGORITHMS)('%s', (alg: SigningAlgorithm) => {
    let key: SigningKey;
    let other: SigningKey;
    beforeAll(async () => {
      [key, other] = await Promise.all([
        generateSigningKey(alg, NOW),
        generateSigningKey(alg, NOW),
      ]);
    });

    it('returns the claims of a token the realm signed', async () => {
      const { context } = realmContext(makeSigner(), [key]);
      const token = await signRealmJwt(context, 'JWT', claims(), alg);
      expect(await verifyRealmJwt(context, token, { typ: 'JWT' })).toEqual(claims());
    });

    it('refuses a changed payload, a signature of another key, and a signature cut short', async () => {
      const { context } = realmContext(makeSigner(), [key]);
      const token = await signRealmJwt(context, 'JWT', claims(), alg);
      const [header, , signature = ''] = token.split('.');
      const changed = `${header}.${base64url.encode(JSON.stringify(claims({ sub: 'mallory' })))}.${signature}`;
      const foreign = await jws(other, { alg, typ: 'JWT', kid: key.kid }, claims());
      for (const bad of [changed, foreign, token.slice(0, -4), `${header}.${token.split('.')[1]}.`])
        expect(await verifyRealmJwt(context, bad, { typ: 'JWT' })).toBeUndefined();
    });
  });

  describe('ES256', () => {
    let key: SigningKey;
    let rsa: SigningKey;
    beforeAll(async () => {
      [key, rsa] = await Promise.all([
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
        await verify(context, await jws(rsa, { alg: 'RS256', typ: 'JWT', kid: rsa.kid }, claims())),
      ).toEqual(claims());
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
      const arrayPayload = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, [] as never);
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

    it('reads the keys afresh once for a kid it does not know (a key rotated elsewhere)', async () => {
      const { context, reads } = realmContext(makeSigner(), [key], []);
      const token = await jws(key, { alg: 'ES256', typ: 'JWT', kid: key.kid }, claims());
      expect(await verify(context, token)).toEqual(claims());
      expect(reads).toEqual([{}, { fresh: true }]);

      const unknown = await jws(key, { alg: 'ES256', typ: 'JWT', kid: 'nobody' }, claims());
      expect(await verify(context, unknown)).toBeUndefined();
      expect(reads).toHaveLength(4);
    });
  });
});

it('counts only a true from the signer: any other answer has not verified the token', async () => {
  const key = await generateSigningKey('ES256', NOW);
  const vague = { sign: webCryptoSigner().sign, verify: async () => 1 as unknown as boolean };
  const { context } = realmContext(vague, [key]);
  const token = await signRealmJwt(context, 'JWT', claims(), 'ES256');
  expect(await verifyRealmJwt(context, token, { typ: 'JWT' })).toBeUndefined();
});
