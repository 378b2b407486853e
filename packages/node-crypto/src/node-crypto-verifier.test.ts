import { describeVerifierContract } from '@gatehouse-oidc/core/testing';
import { base64url, CompactSign, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { ASYMMETRIC_ASSERTION_ALGORITHMS } from '../../core/src/config/client.js';
import { webCryptoVerifier } from '../../core/src/keys/webcrypto-verifier.js';
import { nodeCryptoVerifier } from './node-crypto-verifier.js';

describeVerifierContract('nodeCryptoVerifier', nodeCryptoVerifier);

const encoder = new TextEncoder();

describe('nodeCryptoVerifier beside webCryptoVerifier', () => {
  it.each(ASYMMETRIC_ASSERTION_ALGORITHMS)(
    '%s: the same verdict on every signature',
    async (alg) => {
      const [pair, other] = await Promise.all([generateKeyPair(alg), generateKeyPair(alg)]);
      const token = await new CompactSign(encoder.encode('{"sub":"alice"}'))
        .setProtectedHeader({ alg })
        .sign(pair.privateKey);
      const [header = '', payload = '', signature = ''] = token.split('.');
      const input = encoder.encode(`${header}.${payload}`);
      const bytes = base64url.decode(signature) as Uint8Array<ArrayBuffer>;
      const flipped = bytes.slice();
      flipped[flipped.length - 1] = (flipped.at(-1) ?? 0) ^ 0x80;
      const cases = [
        { key: pair.publicKey, input, signature: bytes },
        { key: pair.publicKey, input, signature: flipped },
        { key: pair.publicKey, input: encoder.encode(`${header}.e30`), signature: bytes },
        { key: other.publicKey, input, signature: bytes },
        { key: pair.publicKey, input, signature: bytes.slice(1) },
        { key: pair.publicKey, input, signature: new Uint8Array(0) },
        { key: pair.publicKey, input, signature: new Uint8Array(bytes.length + 1) },
      ];
      const verdicts = (verifier: ReturnType<typeof nodeCryptoVerifier>) =>
        Promise.all(cases.map((c) => verifier.verify(alg, c.key, c.input, c.signature)));
      const node = await verdicts(nodeCryptoVerifier());
      expect(node).toEqual([true, false, false, false, false, false, false]);
      expect(node).toEqual(await verdicts(webCryptoVerifier()));
    },
  );
});

describe('nodeCryptoVerifier on RSA signatures', () => {
  it.each(['RS256', 'PS256'] as const)(
    '%s: refuses a signature whose leading zero byte was left out, as WebCrypto does',
    async (alg) => {
      const { privateKey, publicKey } = await generateKeyPair(alg);
      // About one signature in 256 starts with a zero byte: sign until one does.
      for (let attempt = 0; attempt < 5_000; attempt++) {
        const token = await new CompactSign(encoder.encode(`{"n":${attempt}}`))
          .setProtectedHeader({ alg })
          .sign(privateKey);
        const [header = '', payload = '', signature = ''] = token.split('.');
        const bytes = base64url.decode(signature) as Uint8Array<ArrayBuffer>;
        if (bytes[0] !== 0) continue;
        const input = encoder.encode(`${header}.${payload}`);
        const shortened = bytes.slice(1);
        expect(await nodeCryptoVerifier().verify(alg, publicKey, input, bytes)).toBe(true);
        expect(await nodeCryptoVerifier().verify(alg, publicKey, input, shortened)).toBe(false);
        expect(await webCryptoVerifier().verify(alg, publicKey, input, shortened)).toBe(false);
        return;
      }
      throw new Error('no signature starting with a zero byte in 5,000');
    },
    60_000,
  );
});
