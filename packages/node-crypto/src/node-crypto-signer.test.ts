import {
  type PublicJwk,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type SigningKey,
} from '@gatehouse-oidc/core';
import { base64url, CompactSign, compactVerify, errors, importJWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../core/src/keys/generate.js';
import { nodeCryptoSigner } from './node-crypto-signer.js';

const encoder = new TextEncoder();
const NOW = 1_900_000_000;

/** The compact JWS of `payload` signed by `signer` with `key`, built the way core builds it. */
async function compactJws(
  signer = nodeCryptoSigner(),
  key: SigningKey,
  payload: object,
): Promise<string> {
  const header = base64url.encode(JSON.stringify({ alg: key.alg, kid: key.kid }));
  const signingInput = `${header}.${base64url.encode(JSON.stringify(payload))}`;
  const signature = await signer.sign(key, encoder.encode(signingInput));
  return `${signingInput}.${base64url.encode(signature)}`;
}

/** A JWS's signature segment as the bytes `verify` takes. */
const signatureBytes = (segment: string) => base64url.decode(segment) as Uint8Array<ArrayBuffer>;

/** The same JWS with another payload under the original signature. */
function withPayload(jws: string, payload: object): string {
  const [header, , signature] = jws.split('.');
  return `${header}.${base64url.encode(JSON.stringify(payload))}.${signature}`;
}

describe.each(SIGNING_ALGORITHMS)('nodeCryptoSigner with %s', (alg: SigningAlgorithm) => {
  let key: SigningKey;
  beforeAll(async () => {
    key = await generateSigningKey(alg, NOW);
  });

  it('produces a signature jose verifies with the public JWK', async () => {
    const jws = await compactJws(undefined, key, { sub: 'alice', n: 1 });
    const verified = await compactVerify(jws, key.publicJwk, { algorithms: [alg] });
    expect(verified.protectedHeader).toEqual({ alg, kid: key.kid });
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual({ sub: 'alice', n: 1 });
  });

  it('produces a signature that fails for a tampered input', async () => {
    const jws = await compactJws(undefined, key, { sub: 'alice' });
    await expect(
      compactVerify(withPayload(jws, { sub: 'mallory' }), key.publicJwk),
    ).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('verifies its own signatures with the public JWK, and nothing else', async () => {
    const signer = nodeCryptoSigner();
    const other = await generateSigningKey(alg, NOW);
    const check = (jws: string, publicJwk = key.publicJwk) => {
      const [header, payload, signature = ''] = jws.split('.');
      return signer.verify?.(
        publicJwk as PublicJwk,
        encoder.encode(`${header}.${payload}`),
        signatureBytes(signature),
      );
    };
    const jws = await compactJws(signer, key, { sub: 'alice' });
    expect(await check(jws)).toBe(true);
    expect(await check(withPayload(jws, { sub: 'mallory' }))).toBe(false);
    expect(await check(jws, other.publicJwk)).toBe(false);
    // A signature cut short, or of no length at all, does not verify either.
    expect(await check(jws.slice(0, -8))).toBe(false);
    expect(await check(`${jws.split('.').slice(0, 2).join('.')}.`)).toBe(false);
    // jose's signature verifies too: the encoding is the JWS one, not node:crypto's DER.
    const joseSigned = await new CompactSign(encoder.encode('{"sub":"bob"}'))
      .setProtectedHeader({ alg })
      .sign(await importJWK(key.privateJwk, alg));
    expect(await check(joseSigned)).toBe(true);
  });
});

describe('nodeCryptoSigner key cache', () => {
  it('reuses the KeyObject made for a kid instead of re-importing the private JWK', async () => {
    const [first, second] = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('ES256', NOW),
    ]);
    const signer = nodeCryptoSigner();
    await compactJws(signer, first, { warm: true });
    // Same kid, different key material: only a cached KeyObject can still produce first's signatures.
    const impostor: SigningKey = { ...second, kid: first.kid };
    const jws = await compactJws(signer, impostor, { sub: 'alice' });
    await expect(compactVerify(jws, first.publicJwk)).resolves.toBeDefined();
    await expect(compactVerify(jws, second.publicJwk)).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('keeps one KeyObject per kid, so keys of different kids sign independently', async () => {
    const [first, second] = await Promise.all([
      generateSigningKey('EdDSA', NOW),
      generateSigningKey('ES256', NOW),
    ]);
    const signer = nodeCryptoSigner();
    const firstJws = await compactJws(signer, first, { n: 1 });
    const secondJws = await compactJws(signer, second, { n: 2 });
    await expect(compactVerify(firstJws, first.publicJwk)).resolves.toBeDefined();
    await expect(compactVerify(secondJws, second.publicJwk)).resolves.toBeDefined();
  });
});

describe('nodeCryptoSigner verification keys', () => {
  it('are told apart by their material, not their kid: two realms may publish the same kid', async () => {
    const [first, second] = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('ES256', NOW),
    ]);
    const signer = nodeCryptoSigner();
    const jws = await compactJws(signer, second, { sub: 'alice' });
    const [header, payload, signature = ''] = jws.split('.');
    const verify = (publicJwk: object) =>
      signer.verify?.(
        publicJwk as PublicJwk,
        encoder.encode(`${header}.${payload}`),
        signatureBytes(signature),
      );
    expect(await verify({ ...first.publicJwk, kid: 'shared' })).toBe(false);
    expect(await verify({ ...second.publicJwk, kid: 'shared' })).toBe(true);
    // A copy of a JWK already seen (a key set read afresh) verifies like the original.
    expect(await verify({ ...second.publicJwk })).toBe(true);
  });
});

describe('nodeCryptoSigner batching', () => {
  it('signs and verifies in the same batches, each job answered with its own result', async () => {
    const key = await generateSigningKey('ES256', NOW);
    const signer = nodeCryptoSigner();
    const signed = await Promise.all(
      Array.from({ length: 12 }, (_, n) => compactJws(signer, key, { n })),
    );
    const checks = signed.flatMap((jws, n) => {
      const [header, payload, signature = ''] = jws.split('.');
      const input = encoder.encode(`${header}.${payload}`);
      const verify = (value: Uint8Array<ArrayBuffer>) =>
        signer.verify?.(key.publicJwk as PublicJwk, input, value);
      // Every third one is checked against a signature of another payload.
      const other = signed[(n + 1) % signed.length]?.split('.')[2] ?? '';
      return [
        verify(signatureBytes(n % 3 === 0 ? other : signature)),
        compactJws(signer, key, { n }),
      ];
    });
    const results = await Promise.all(checks);
    const verdicts = results.filter((result) => typeof result === 'boolean');
    expect(verdicts).toEqual(signed.map((_, n) => n % 3 !== 0));
  });

  it('answers every one of many signatures requested in the same turn with its own signature', async () => {
    const keys = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('EdDSA', NOW),
    ]);
    const signer = nodeCryptoSigner();
    const payloads = Array.from({ length: 40 }, (_, n) => ({ n }));
    const signed = await Promise.all(
      payloads.map((payload, n) => compactJws(signer, keys[n % 2] as SigningKey, payload)),
    );
    const verified = await Promise.all(
      signed.map((jws, n) => compactVerify(jws, (keys[n % 2] as SigningKey).publicJwk)),
    );
    expect(verified.map((v) => JSON.parse(new TextDecoder().decode(v.payload)))).toEqual(payloads);
  });

  it('rejects only the signature that fails, not the others of its batch', async () => {
    const [good, ed25519] = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('EdDSA', NOW),
    ]);
    // Ed25519 key material under an ES256 label: node:crypto refuses a SHA-256 digest for it.
    const mislabeled: SigningKey = { ...ed25519, alg: 'ES256' };
    const signer = nodeCryptoSigner();
    const [failed, succeeded] = await Promise.allSettled([
      compactJws(signer, mislabeled, { n: 1 }),
      compactJws(signer, good, { n: 2 }),
    ]);
    expect(failed).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/^signing failed/) },
    });
    expect(succeeded.status).toBe('fulfilled');
    if (succeeded.status === 'fulfilled')
      await expect(compactVerify(succeeded.value, good.publicJwk)).resolves.toBeDefined();
  });
});
