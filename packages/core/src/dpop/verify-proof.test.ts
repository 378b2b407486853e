import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../crypto/digest.js';
import { OAuthError } from '../errors/oauth-error.js';
import { webCryptoVerifier } from '../keys/webcrypto-verifier.js';
import { MemoryStore } from '../store/memory-store.js';
import { proofHeader } from './proof-header.js';
import { rememberProof } from './replay.js';
import { type ProofRules, verifyProof } from './verify-proof.js';

const NOW = 1_700_000_000;
const URL_ = 'https://id.example.com/oauth/test/userinfo';
const TOKEN = 'an-access-token';
const ALGORITHMS = ['ES256', 'PS256', 'EdDSA', 'RS256'];

let key: CryptoKey;
let jwk: JWK;
let otherKey: CryptoKey;
let privateJwk: JWK;
beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwk = await exportJWK(pair.publicKey);
  privateJwk = await exportJWK(pair.privateKey);
  otherKey = (await generateKeyPair('ES256')).privateKey;
});

let counter = 0;
/** A proof for GET userinfo with TOKEN, signed by `key`, with `claims` and `header` overriding. */
function proof(
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
  signingKey: CryptoKey | Uint8Array = key,
): Promise<string> {
  return new SignJWT({
    jti: `jti-${counter++}`,
    htm: 'GET',
    htu: URL_,
    iat: NOW,
    ath: tokenDigest(TOKEN),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header } as never)
    .sign(signingKey);
}

function rules(overrides: Partial<ProofRules> = {}): ProofRules {
  const store = new MemoryStore({ now: () => NOW * 1000 });
  return {
    algorithms: ALGORITHMS,
    verifier: webCryptoVerifier(),
    now: () => NOW * 1000,
    remember: (jkt, jti) => rememberProof(store, 'test', jkt, jti),
    ...overrides,
  };
}

const request = { method: 'GET', url: URL_, accessToken: TOKEN };

async function refusal(
  made: Promise<string>,
  given = rules(),
  target = request,
): Promise<OAuthError> {
  const error = await verifyProof(await made, target, given).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OAuthError);
  return error as OAuthError;
}

/** An unsigned JWT (alg none), which no verifier may accept. */
function unsecured(): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'dpop+jwt', jwk })}.${encode({ jti: 'n', htm: 'GET', htu: URL_, iat: NOW })}.`;
}

describe('verifyProof', () => {
  it('accepts a proof for this request and returns its key thumbprint', async () => {
    expect(await verifyProof(await proof(), request, rules())).toBe(
      await calculateJwkThumbprint(jwk),
    );
  });

  it('accepts htu with a query or fragment, and a URL spelled differently but equal', async () => {
    const htu = 'HTTPS://ID.example.com:443/oauth/test/userinfo?x=1#y';
    await expect(verifyProof(await proof({ htu }), request, rules())).resolves.toBeTypeOf('string');
  });

  it.each<[string, () => Promise<string>, string]>([
    ['another method', () => proof({ htm: 'POST' }), 'another HTTP method'],
    ['another URL', () => proof({ htu: 'https://id.example.com/oauth/test/token' }), 'another URL'],
    [
      'another host',
      () => proof({ htu: 'https://evil.example/oauth/test/userinfo' }),
      'another URL',
    ],
    ['an iat older than 60 s', () => proof({ iat: NOW - 61 }), 'too old'],
    ['an iat in the future', () => proof({ iat: NOW + 11 }), 'in the future'],
    ['no iat', () => proof({ iat: undefined }), 'no iat'],
    ['no jti', () => proof({ jti: undefined }), 'jti'],
    ['an oversized jti', () => proof({ jti: 'j'.repeat(257) }), 'jti'],
    ['no ath', () => proof({ ath: undefined }), 'no ath'],
    [
      'the ath of another token',
      () => proof({ ath: tokenDigest('other') }),
      'another access token',
    ],
    ['typ JWT', () => proof({}, { typ: 'JWT' }), 'not a valid JWT'],
    ['a signature by another key', () => proof({}, {}, otherKey), 'not a valid JWT'],
    ['a private key in jwk', () => proof({}, { jwk: privateJwk }), 'must be a public key'],
    ['no jwk', () => proof({}, { jwk: undefined }), 'no jwk'],
    [
      'an HMAC algorithm',
      () => proof({}, { alg: 'HS256', jwk: { kty: 'oct', k: 'c2VjcmV0' } }, new Uint8Array(32)),
      'must be a public key',
    ],
    ['alg none', async () => unsecured(), 'an algorithm this realm does not accept'],
  ])('refuses a proof with %s as invalid_dpop_proof', async (_, made, why) => {
    const error = await refusal(made());
    expect(error.code).toBe('invalid_dpop_proof');
    expect(error.status).toBe(400);
    expect(error.description).toContain(why);
  });

  it.each(['EdDSA', 'PS256', 'RS256', 'ES384'])('accepts a proof signed with %s', async (alg) => {
    const pair = await generateKeyPair(alg, { modulusLength: 2048 });
    const ownJwk = await exportJWK(pair.publicKey);
    const made = await proof({}, { alg, jwk: ownJwk }, pair.privateKey);
    const rulesFor = rules({ algorithms: [...ALGORITHMS, 'ES384'] });
    expect(await verifyProof(made, request, rulesFor)).toBe(await calculateJwkThumbprint(ownJwk));
  });

  it('refuses an algorithm the realm does not list', async () => {
    const error = await refusal(proof(), rules({ algorithms: ['PS256'] }));
    expect(error.code).toBe('invalid_dpop_proof');
  });

  it('accepts a token-endpoint proof without ath when no token comes with it', async () => {
    const target = { method: 'POST', url: URL_ };
    const made = await proof({ htm: 'POST', ath: undefined });
    await expect(verifyProof(made, target, rules())).resolves.toBeTypeOf('string');
  });

  it('refuses a replayed jti, and only once the proof passed every other check', async () => {
    const given = rules();
    const jti = 'replayed';
    expect((await refusal(proof({ jti, htm: 'POST' }), given)).code).toBe('invalid_dpop_proof');
    await verifyProof(await proof({ jti }), request, given);
    const replay = await refusal(proof({ jti }), given);
    expect(replay.description).toContain('used before');
  });

  it('asks for the server nonce with use_dpop_nonce, and accepts a proof with it', async () => {
    const given = rules({ acceptsNonce: async (nonce) => nonce === 'good' });
    expect((await refusal(proof(), given)).code).toBe('use_dpop_nonce');
    expect((await refusal(proof({ nonce: 'stale' }), given)).code).toBe('use_dpop_nonce');
    await expect(
      verifyProof(await proof({ nonce: 'good' }), request, given),
    ).resolves.toBeDefined();
  });
});

describe('proofHeader', () => {
  const read = (dpop: string | undefined) =>
    proofHeader({ method: 'GET', path: '/', query: '', headers: { dpop } });

  it('reads one compact JWT, or nothing without the header', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('a.b.c')).toBe('a.b.c');
  });

  it.each([
    ['oversized', `a.${'b'.repeat(8192)}.c`],
    ['repeated', 'a.b.c, d.e.f'],
    ['not a JWS', 'not-a-proof'],
  ])('refuses an %s header', (_, value) => {
    expect(() => read(value)).toThrow(expect.objectContaining({ code: 'invalid_dpop_proof' }));
  });
});
