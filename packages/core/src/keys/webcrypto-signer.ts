import { type CryptoKey, importJWK } from 'jose';
import type { SigningAlgorithm } from '../config/realm.js';
import { KeyCache } from './key-cache.js';
import { type JwsSigner, type PublicJwk, type SigningKey, signingMaterial } from './signing-key.js';

type SignParameters = Parameters<typeof crypto.subtle.sign>[0];

const SIGN_PARAMETERS: Record<SigningAlgorithm, SignParameters> = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' } as SignParameters,
  EdDSA: { name: 'Ed25519' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
  PS256: { name: 'RSA-PSS', saltLength: 32 } as SignParameters,
};

/** Public keys imported for verification. */
const importedPublicKeys = new KeyCache<Promise<CryptoKey>>();

/** An import for `cache`, forgotten there if it fails so that the next call tries again. */
function importOnce(
  cache: KeyCache<Promise<CryptoKey>>,
  handle: object,
  importKey: () => Promise<unknown>,
): Promise<CryptoKey> {
  const importing = importKey() as Promise<CryptoKey>;
  importing.catch(() => cache.forget(handle, importing));
  return importing;
}

/** Verifies a JWS signature through `crypto.subtle`: false when it does not verify or is malformed. */
export async function verifyWithWebCrypto(
  publicKey: PublicJwk,
  signingInput: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const imported = importedPublicKeys.get(
    publicKey,
    () => publicKey,
    () => importOnce(importedPublicKeys, publicKey, () => importJWK(publicKey, publicKey.alg)),
  );
  try {
    return await crypto.subtle.verify(
      SIGN_PARAMETERS[publicKey.alg],
      await imported,
      signature,
      signingInput,
    );
  } catch {
    // A key WebCrypto cannot import, or a signature it cannot even read (a wrong length for the
    // curve…), verifies nothing.
    return false;
  }
}

/**
 * The platform-neutral signer: WebCrypto through `crypto.subtle`. Imported private keys are cached
 * by the signing key object and by its private material and `alg`, not by kid: two realms' key
 * stores may reuse a kid.
 */
export function webCryptoSigner(): JwsSigner {
  const imported = new KeyCache<Promise<CryptoKey>>();
  return {
    async sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      const cryptoKey = imported.get(
        key,
        () => signingMaterial(key),
        () => importOnce(imported, key, () => importJWK(key.privateJwk, key.alg)),
      );
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
