import { type CryptoKey, importJWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import type { JwsSigner, PublicJwk, SigningKey } from './signing-key.js';

type SignParameters = Parameters<typeof crypto.subtle.sign>[0];

const SIGN_PARAMETERS: Record<SigningAlgorithm, SignParameters> = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' } as SignParameters,
  EdDSA: { name: 'Ed25519' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
  PS256: { name: 'RSA-PSS', saltLength: 32 } as SignParameters,
};

/**
 * Public keys imported for verification, by the JWK object the key store published: a key set
 * read afresh brings new objects, and the old ones are collected with their imports.
 */
const importedPublicKeys = new WeakMap<PublicJwk, Promise<CryptoKey>>();

/** Verifies a JWS signature through `crypto.subtle`: false when it does not verify or is malformed. */
export async function verifyWithWebCrypto(
  publicKey: PublicJwk,
  signingInput: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  let imported = importedPublicKeys.get(publicKey);
  if (!imported) {
    imported = importJWK(publicKey, publicKey.alg) as Promise<CryptoKey>;
    importedPublicKeys.set(publicKey, imported);
    imported.catch(() => importedPublicKeys.delete(publicKey));
  }
  const cryptoKey = await imported;
  try {
    return await crypto.subtle.verify(
      SIGN_PARAMETERS[publicKey.alg],
      cryptoKey,
      signature,
      signingInput,
    );
  } catch {
    // A signature WebCrypto cannot even read (a wrong length for the curve…) does not verify.
    return false;
  }
}

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
    verify: verifyWithWebCrypto,
  };
}
