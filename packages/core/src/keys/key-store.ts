import type { JWK } from 'jose';
import type { SigningAlgorithm } from '../config/signing-algorithms.js';
import type { Realm } from '../realms/realm.js';
import type { SigningKey } from './signing-key.js';

/**
 * Per-realm signing keys: one current key for each algorithm the realm signs with
 * (`realm.signingAlgorithms`: its `signing_alg`, and RS256, which every realm offers for ID tokens).
 */
export interface KeyStore {
  /**
   * The key new tokens are signed with, of `alg` (default: the realm's `signing_alg`); generated
   * on first use. A key of another algorithm is an error.
   */
  currentKey(realm: Realm, alg?: SigningAlgorithm): Promise<SigningKey>;
  /**
   * The public keys of the realm's JWKS: the current key of each of the realm's algorithms and
   * every retired key that may still have signed a live token. The same array is returned while
   * the set is unchanged. By default the list may be as old as the implementation's refresh
   * interval, and lack the key of an algorithm nothing has signed with yet; `fresh` looks for keys
   * other instances made first and makes the missing ones (the JWKS endpoint, a token whose `kid`
   * is not in the cached list).
   */
  publicKeys(realm: Realm, options?: { fresh?: boolean }): Promise<readonly JWK[]>;
  /**
   * Makes a new current key for each of the realm's algorithms and returns the one of its
   * `signing_alg`; the previous ones stay published until their tokens have expired.
   */
  rotate(realm: Realm): Promise<SigningKey>;
}
