import { type CryptoKey, importJWK } from 'jose';
import type { JwsVerifier } from './jws-verifier.js';
import { KeyCache } from './key-cache.js';
import { fitsRsaModulus } from './rsa-signature-length.js';
import type { PublicJwk } from './signing-key.js';
import { WEBCRYPTO_ALGORITHMS } from './webcrypto-algorithms.js';

/** The platform-neutral verifier: WebCrypto's `crypto.subtle.verify`. */
export function webCryptoVerifier(): JwsVerifier {
  return {
    async verify(alg, key, signingInput, signature) {
      if (!fitsRsaModulus(key, signature)) return false;
      try {
        return await crypto.subtle.verify(WEBCRYPTO_ALGORITHMS[alg], key, signature, signingInput);
      } catch {
        // A signature WebCrypto cannot even read (a wrong length for the curve…) verifies nothing.
        return false;
      }
    },
  };
}

/** The realm's published keys, imported once each (by their material: realms may share a kid). */
const importedPublicKeys = new KeyCache<Promise<CryptoKey>>();

/** `publicKey` as a CryptoKey for its own `alg`; rejects for a key WebCrypto cannot import. */
export function importPublicKey(publicKey: PublicJwk): Promise<CryptoKey> {
  return importedPublicKeys.get(
    publicKey,
    () => publicKey,
    () => importOnce(importedPublicKeys, publicKey, () => importJWK(publicKey, publicKey.alg)),
  );
}

/** An import for `cache`, forgotten there if it fails so that the next call tries again. */
export function importOnce(
  cache: KeyCache<Promise<CryptoKey>>,
  handle: object,
  importKey: () => Promise<unknown>,
): Promise<CryptoKey> {
  const importing = importKey() as Promise<CryptoKey>;
  importing.catch(() => cache.forget(handle, importing));
  return importing;
}
