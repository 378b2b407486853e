import { base64url, compactVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RealmContext } from '../context.js';
import { generateSigningKey } from '../keys/generate.js';
import type { SigningKey } from '../keys/signing-key.js';
import { webCryptoSigner } from '../keys/webcrypto-signer.js';
import { signRealmJwt } from './sign.js';

describe('signRealmJwt', () => {
  let key: SigningKey;
  let context: RealmContext;
  beforeAll(async () => {
    key = await generateSigningKey('ES256', 0);
    context = {
      realm: { config: { signing_alg: 'ES256' } },
      keys: { currentKey: async () => key },
      signer: webCryptoSigner(),
    } as unknown as RealmContext;
  });

  // ASCII payloads whose base64 has 0, 1 and 2 padding characters and both `+`/`/` substitutions,
  // then payloads that are not ASCII and take the UTF-8 byte path.
  it.each([
    { sub: 'a' },
    { sub: 'ab' },
    { sub: 'abc' },
    { bytes: '>>>???~~~' },
    { name: 'José' },
    { name: '日本語 🙂', control: '\u007f\u0080' },
  ])('signs %j as a JWS whose segments match the standard base64url encoding', async (payload) => {
    const jws = await signRealmJwt(context, 'at+jwt', payload);
    const [header, body] = jws.split('.');
    expect(header).toBe(
      base64url.encode(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })),
    );
    expect(body).toBe(base64url.encode(JSON.stringify(payload)));
    const verified = await compactVerify(jws, key.publicJwk);
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
  });

  it('signs a payload longer than the buffer kept for encoding payloads', async () => {
    const payload = { claims: 'x'.repeat(20_000), more: 'é'.repeat(6_000) };
    const jws = await signRealmJwt(context, 'JWT', payload);
    expect(jws.split('.')[1]).toBe(base64url.encode(JSON.stringify(payload)));
    const verified = await compactVerify(jws, key.publicJwk);
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
  });

  it('refuses a key of another algorithm than asked for (a KeyStore that ignores alg)', async () => {
    await expect(signRealmJwt(context, 'JWT', { sub: 'a' }, 'RS256')).rejects.toThrow(
      'the KeyStore returned a ES256 key for RS256',
    );
  });
});
