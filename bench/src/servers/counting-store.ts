import type {
  CappedRecordOptions,
  ConsumeResult,
  FieldConditions,
  RecordKey,
  RecordOptions,
  ReplaceOptions,
  Revised,
  Store,
  StoreMetrics,
} from '@gatehouse-oidc/core';

/** The Store methods that reach the backing service: in PostgresStore and RedisStore each call is one round trip (docs/storage-and-keys.md), but for RedisStore's grant listings. */
export type StoreMethod = Exclude<keyof Store, 'close' | 'metrics'>;

/**
 * A Store that counts the calls the provider makes on another, per method, and otherwise
 * passes everything through: what the bench reports as store operations per request.
 */
export class CountingStore implements Store {
  readonly #store: Store;
  readonly #counts = new Map<StoreMethod, number>();

  /** Passed through when the store has it, so the provider sees the store as it is. */
  readonly consumeIf: Store['consumeIf'];

  constructor(store: Store) {
    this.#store = store;
    const consumeIf = store.consumeIf?.bind(store);
    this.consumeIf =
      consumeIf &&
      (<T>(namespace: string, id: string, fields: FieldConditions) => {
        this.#count('consumeIf');
        return consumeIf<T>(namespace, id, fields);
      });
  }

  /** The calls so far, per method (only the methods called). */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  #count(method: StoreMethod): Store {
    this.#counts.set(method, (this.#counts.get(method) ?? 0) + 1);
    return this.#store;
  }

  get<T>(namespace: string, id: string): Promise<T | undefined> {
    return this.#count('get').get<T>(namespace, id);
  }

  set<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<void> {
    return this.#count('set').set(namespace, id, value, options);
  }

  add<T>(namespace: string, id: string, value: T, options?: RecordOptions): Promise<boolean> {
    return this.#count('add').add(namespace, id, value, options);
  }

  consume<T, N = unknown>(
    namespace: string,
    id: string,
    note?: N,
  ): Promise<ConsumeResult<T, N> | undefined> {
    return this.#count('consume').consume<T, N>(namespace, id, note);
  }

  read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    return this.#count('read').read<T>(namespace, id);
  }

  replace<T>(
    namespace: string,
    id: string,
    revision: number,
    value: T,
    options?: ReplaceOptions,
  ): Promise<boolean> {
    return this.#count('replace').replace(namespace, id, revision, value, options);
  }

  delete(namespace: string, id: string): Promise<boolean> {
    return this.#count('delete').delete(namespace, id);
  }

  listGrant(grantId: string): Promise<RecordKey[]> {
    return this.#count('listGrant').listGrant(grantId);
  }

  revokeGrant(grantId: string): Promise<RecordKey[]> {
    return this.#count('revokeGrant').revokeGrant(grantId);
  }

  setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number> {
    return this.#count('setCapped').setCapped(namespace, id, value, options);
  }

  ping(): Promise<void> {
    return this.#count('ping').ping();
  }

  metrics(): StoreMetrics {
    return this.#store.metrics();
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}
