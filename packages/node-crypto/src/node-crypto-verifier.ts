import { KeyObject, verify } from 'node:crypto';
import type { JwsVerifier } from '@gatehouse-oidc/core';
import { fitsRsaModulus } from '@gatehouse-oidc/core/adapter';
import { NODE_ALGORITHMS } from './algorithms.js';

/**
 * A JWS verifier on `node:crypto`: `crypto.verify` with a callback, which checks the signature on
 * libuv's thread pool while the event loop goes on. The core hands it WebCrypto keys it has
 * already imported and checked against the algorithm, and Node.js shares their key material with
 * a KeyObject at no cost (`KeyObject.from`), so nothing is cached here. Under HTTP load, CIBA
 * initiations took 0.89× the server CPU and gave 1.5× the throughput of the same check made
 * synchronously on the event loop; one verification alone costs more, the threads being woken
 * for it (docs/performance.md). Inject it with
 * `createProvider({ verifier: nodeCryptoVerifier() })`.
 */
export function nodeCryptoVerifier(): JwsVerifier {
  return {
    verify(alg, key, signingInput, signature) {
      const { digest, options } = NODE_ALGORITHMS[alg];
      return new Promise((resolve) => {
        try {
          if (!fitsRsaModulus(key, signature)) {
            resolve(false);
            return;
          }
          verify(
            digest,
            signingInput,
            { ...options, key: KeyObject.from(key) },
            signature,
            (error, verified) => resolve(!error && verified === true),
          );
        } catch {
          // A signature node:crypto cannot even read (a wrong length for the curve…) verifies nothing.
          resolve(false);
        }
      });
    },
  };
}
