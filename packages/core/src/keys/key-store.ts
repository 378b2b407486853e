import type { JWK } from 'jose';
import type { Realm } from '../realms/realm.js';
import type { SigningKey } from './signing-key.js';

/** Per-realm signing keys. */
export interface KeyStore {
  /** The key new tokens are signed with; generated on first use. */
  currentKey(realm: Realm): Promise<SigningKey>;
  /**
   * The public keys of the realm's JWKS: the current key and every retired key that may still
   * have signed a live token. The same array is returned while the set is unchanged. By default
   * the list may be as old as the implementation's refresh interval; `fresh` looks for keys other
   * instances made first (the JWKS endpoint, a token whose `kid` is not in the cached list).
   */
  publicKeys(realm: Realm, options?: { fresh?: boolean }): Promise<readonly JWK[]>;
  /** Makes a new current key; the previous one stays published until its tokens have expired. */
  rotate(realm: Realm): Promise<SigningKey>;
}
