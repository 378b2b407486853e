import { base64url, exportJWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import type { RealmContext } from '../context.js';
import { generateSigningKey } from '../keys/generate.js';
import type { JwsVerifier } from '../keys/jws-verifier.js';
import type { JwsSigner, SigningKey } from '../keys/signing-key.js';
import { webCryptoSigner } from '../keys/webcrypto-signer.js';
import { webCryptoVerifier } from '../keys/webcrypto-verifier.js';

/** What the signer and verifier contracts sign and verify realm tokens with. */
export const ISSUER = 'https://id.example.com/oauth/demo';
export const NOW = 1_900_000_000;
const encoder = new TextEncoder();

/**
 * A realm context over `keys`, the first one current, with the signer and verifier given (else
 * WebCrypto's); `published` is what publicKeys answers, and `reads` records each of its calls.
 */
export function realmContext(
  {
    signer = webCryptoSigner(),
    verifier = webCryptoVerifier(),
  }: {
    signer?: JwsSigner;
    verifier?: JwsVerifier;
  },
  keys: SigningKey[],
  published = keys,
) {
  const reads: Array<{ fresh?: boolean }> = [];
  const context = {
    realm: { issuer: ISSUER, config: { signing_alg: keys[0]?.alg } },
    now: () => NOW * 1000,
    signer,
    verifier,
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

/** Two fresh keys of `alg`: one a realm signs with, and one it never saw. */
export const twoSigningKeys = (alg: SigningAlgorithm): Promise<[SigningKey, SigningKey]> =>
  Promise.all([generateSigningKey(alg, NOW), generateSigningKey(alg, NOW)]);

/** A compact JWS with any header, signed by `key` through WebCrypto. */
export async function jws(key: SigningKey, header: object, payload: object): Promise<string> {
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  const signature = await webCryptoSigner().sign(key, encoder.encode(input));
  return `${input}.${base64url.encode(signature)}`;
}

export const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  sub: 'alice',
  aud: 'web-app',
  iat: NOW - 10,
  exp: NOW + 600,
  ...extra,
});

/** An RSA key of 1024 bits, which JWS (RFC 7518 §3.3) does not allow, as a realm key. */
export async function weakRsaKey(): Promise<SigningKey> {
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
