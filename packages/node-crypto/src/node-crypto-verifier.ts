import { KeyObject, verify } from 'node:crypto';
import type { JwsVerifier } from '@gatehouse-oidc/core';
import { fitsRsaModulus } from '@gatehouse-oidc/core/adapter';
import { NODE_ALGORITHMS } from './algorithms.js';

/**
 * A JWS verifier on `node:crypto`: `crypto.verify` on the event loop, synchronously. The core
 * hands it WebCrypto keys it has already imported and checked against the algorithm, and Node.js
 * shares their key material with a KeyObject at no cost (`KeyObject.from`), so nothing is cached
 * here. An ES256 verification costs about half the CPU of WebCrypto's, whose every call is a job
 * for libuv's thread pool, and a third of a round trip to a signing thread (docs/performance.md).
 * Inject it with `createProvider({ verifier: nodeCryptoVerifier() })`.
 */
export function nodeCryptoVerifier(): JwsVerifier {
  return {
    async verify(alg, key, signingInput, signature) {
      const { digest, options } = NODE_ALGORITHMS[alg];
      try {
        if (!fitsRsaModulus(key, signature)) return false;
        return verify(digest, signingInput, { ...options, key: KeyObject.from(key) }, signature);
      } catch {
        // A signature node:crypto cannot even read (a wrong length for the curve…) verifies nothing.
        return false;
      }
    },
  };
}
