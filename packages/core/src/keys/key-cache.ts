import type { JWK } from 'jose';

/**
 * What a signer makes once per key (an imported CryptoKey, a KeyObject, a worker's key id), found
 * by the object the key store handed out and else by the key's public JWK: a key set read afresh
 * brings equal keys in new objects, and two realms' key stores may reuse a kid for different
 * keys, so a kid alone must not find a key. Holds at most `limit` keys, dropping the oldest.
 */
export class KeyCache<Value> {
  readonly #materialByObject = new WeakMap<object, string>();
  readonly #byMaterial = new Map<string, Value>();

  constructor(
    private readonly limit = 1000,
    private readonly onEvict: (value: Value) => void = () => {},
  ) {}

  /** The value for the key `handle` stands for (`publicJwk` is its public half), made on a miss. */
  get(handle: object, publicJwk: JWK, make: () => Value): Value {
    let material = this.#materialByObject.get(handle);
    if (material === undefined) {
      material = JSON.stringify(publicJwk);
      this.#materialByObject.set(handle, material);
    }
    const known = this.#byMaterial.get(material);
    if (known !== undefined) return known;
    const made = make();
    if (this.#byMaterial.size >= this.limit) this.#evictOldest();
    this.#byMaterial.set(material, made);
    return made;
  }

  /** Drops the value made for this public key (it turned out unusable), to be made again. */
  forget(publicJwk: JWK): void {
    this.#byMaterial.delete(JSON.stringify(publicJwk));
  }

  #evictOldest(): void {
    const oldest = this.#byMaterial.entries().next();
    if (oldest.done) return;
    this.#byMaterial.delete(oldest.value[0]);
    this.onEvict(oldest.value[1]);
  }
}
