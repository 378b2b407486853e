import { type CryptoKey, importJWK, type JWK } from 'jose';

/** Public keys imported lately: a client signs its proofs with one key for a long time. */
const MAX_KEYS = 1_024;
const imported = new Map<string, Promise<CryptoKey | Uint8Array>>();

/**
 * The WebCrypto key of a proof's `jwk` for `alg`, imported once and kept by its thumbprint:
 * importing costs more than the signature check itself. The oldest is dropped past MAX_KEYS, so
 * a flood of new keys costs what it would without the cache, and memory stays bounded. A failed
 * import is not kept.
 */
export function proofKey(jwk: JWK, alg: string, jkt: string): Promise<CryptoKey | Uint8Array> {
  const id = `${alg} ${jkt}`;
  let key = imported.get(id);
  if (!key) {
    key = importJWK(jwk, alg);
    key.catch(() => imported.delete(id));
    if (imported.size >= MAX_KEYS) imported.delete(imported.keys().next().value as string);
    imported.set(id, key);
  }
  return key;
}
