import { type CryptoKey, importJWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import type { JwsSigner, SigningKey } from './signing-key.js';

type SignParameters = Parameters<typeof crypto.subtle.sign>[0];

const SIGN_PARAMETERS: Record<SigningAlgorithm, SignParameters> = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' } as SignParameters,
  EdDSA: { name: 'Ed25519' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
  PS256: { name: 'RSA-PSS', saltLength: 32 } as SignParameters,
};

/** The platform-neutral signer: WebCrypto through `crypto.subtle`, imported keys cached by kid. */
export function webCryptoSigner(): JwsSigner {
  const imported = new Map<string, Promise<CryptoKey>>();
  return {
    async sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      let cryptoKey = imported.get(key.kid);
      if (!cryptoKey) {
        cryptoKey = importJWK(key.privateJwk, key.alg) as Promise<CryptoKey>;
        imported.set(key.kid, cryptoKey);
      }
      const signature = await crypto.subtle.sign(
        SIGN_PARAMETERS[key.alg],
        await cryptoKey,
        signingInput,
      );
      return new Uint8Array(signature);
    },
  };
}
