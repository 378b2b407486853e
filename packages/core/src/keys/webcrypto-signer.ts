import { type CryptoKey, importJWK } from 'jose';
import { KeyCache } from './key-cache.js';
import { type JwsSigner, type SigningKey, signingMaterial } from './signing-key.js';
import { WEBCRYPTO_ALGORITHMS } from './webcrypto-algorithms.js';
import { importOnce } from './webcrypto-verifier.js';

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
        WEBCRYPTO_ALGORITHMS[key.alg],
        await cryptoKey,
        signingInput,
      );
      return new Uint8Array(signature);
    },
  };
}
