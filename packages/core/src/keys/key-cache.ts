import type { JWK } from 'jose';

/**
 * What a signer makes once per key (an imported CryptoKey, a KeyObject, a worker's key id), found
 * by the object the key store handed out and else by the key's material: a key set read afresh
 * brings equal keys in new objects, and two realms' key stores may reuse a kid for different
 * keys, so a kid alone must not find a key. Give a signing key's private JWK as its material (a
 * public half says nothing of the private key beside it) and a published key's public JWK. Holds
 * at most `limit` keys, dropping the oldest.
 */
export class KeyCache<Value> {
  readonly #materialByObject = new WeakMap<object, string>();
  readonly #byMaterial = new Map<string, Value>();

  constructor(
    private readonly limit = 1000,
    private readonly onEvict: (value: Value) => void = () => {},
  ) {}

  /**
   * The value for the key `handle` stands for, made on a miss. `material` is read only the first
   * time `handle` is seen.
   */
  get(handle: object, material: () => JWK, make: () => Value): Value {
    const text = this.#materialOf(handle, material);
    const known = this.#byMaterial.get(text);
    if (known !== undefined) return known;
    const made = make();
    if (this.#byMaterial.size >= this.limit) this.#evictOldest();
    this.#byMaterial.set(text, made);
    return made;
  }

  /**
   * Drops `value`, made for `handle`'s key, which turned out unusable (a failed import), so that
   * the next call makes it again; a value made since is left alone.
   */
  forget(handle: object, value: Value): void {
    const text = this.#materialByObject.get(handle);
    if (text === undefined || this.#byMaterial.get(text) !== value) return;
    this.#byMaterial.delete(text);
    this.onEvict(value);
  }

  #materialOf(handle: object, material: () => JWK): string {
    let text = this.#materialByObject.get(handle);
    if (text === undefined) {
      text = JSON.stringify(material());
      this.#materialByObject.set(handle, text);
    }
    return text;
  }

  #evictOldest(): void {
    const oldest = this.#byMaterial.entries().next();
    if (oldest.done) return;
    this.#byMaterial.delete(oldest.value[0]);
    this.onEvict(oldest.value[1]);
  }
}
