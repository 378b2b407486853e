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
