import type { JWK } from 'jose';
import type { Realm } from '../realms/realm.js';
import type { Store } from '../store/store.js';
import { generateSigningKey } from './generate.js';
import type { KeyStore } from './key-store.js';
import type { SigningKey } from './signing-key.js';

const NAMESPACE = 'signing_key';
/** How long an instance trusts its cached key list before looking for keys other instances made. */
const REFRESH_MS = 30_000;
/** Allowance for verifiers whose clocks run behind ours. */
const CLOCK_SKEW_SECONDS = 60;

interface RealmKeys {
  /** Keys in the order they were made; the last is current. Record ids are `{realm}/{index+1}`. */
  keys: SigningKey[];
  refreshedAt: number;
  published: { keys: SigningKey[]; jwks: readonly JWK[] } | undefined;
}

/**
 * Keys persisted through the Store, so every instance sharing the store signs with the same key
 * and publishes the same JWKS. Keys form an append-only sequence per realm; `add` makes
 * concurrent first-use generation and rotation safe: one writer wins each position, the others
 * adopt its key.
 */
export class StoreKeyStore implements KeyStore {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #realms = new Map<string, RealmKeys>();
  readonly #generating = new Map<string, Promise<SigningKey>>();
  readonly #reading = new Map<string, Promise<RealmKeys>>();

  constructor(store: Store, options: { now?: () => number } = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
  }

  async currentKey(realm: Realm): Promise<SigningKey> {
    const state = await this.#cached(realm.name);
    return usableKey(state.keys, realm, this.#nowSeconds()) ?? this.#appendOnce(realm);
  }

  async publicKeys(realm: Realm, options: { fresh?: boolean } = {}): Promise<readonly JWK[]> {
    if (options.fresh) await this.#refresh(realm.name);
    await this.currentKey(realm);
    const state = await this.#cached(realm.name);
    const published = publishedKeys(state.keys, realm, this.#nowSeconds());
    if (!state.published || !sameKeys(state.published.keys, published)) {
      state.published = {
        keys: published,
        jwks: Object.freeze(published.map((key) => key.publicJwk)),
      };
    }
    return state.published.jwks;
  }

  rotate(realm: Realm): Promise<SigningKey> {
    return this.#append(realm, { rotate: true });
  }

  /** One generation at a time per realm in this process, however many requests need a key. */
  #appendOnce(realm: Realm): Promise<SigningKey> {
    return shared(this.#generating, realm.name, () => this.#append(realm, { rotate: false }));
  }

  async #append(realm: Realm, options: { rotate: boolean }): Promise<SigningKey> {
    const key = await generateSigningKey(realm.config.signing_alg, this.#nowSeconds());
    for (;;) {
      const state = await this.#refresh(realm.name);
      // Another instance made a usable key while we generated ours: use theirs.
      const theirs = options.rotate ? undefined : usableKey(state.keys, realm, this.#nowSeconds());
      if (theirs) return theirs;
      const position = state.keys.length + 1;
      if (await this.#store.add(NAMESPACE, `${realm.name}/${position}`, key)) {
        // A concurrent refresh may already have read our key back.
        if (state.keys.length === position - 1) state.keys.push(key);
        return key;
      }
      // Another instance took this position first: a concurrent rotation is as good as ours;
      // otherwise the next turn of the loop adopts its key.
      const winner = (await this.#refresh(realm.name)).keys.at(-1);
      if (options.rotate && winner?.alg === realm.config.signing_alg) return winner;
    }
  }

  #nowSeconds(): number {
    return Math.floor(this.#now() / 1000);
  }

  /** The realm's keys as last read, read again when older than the refresh interval. */
  async #cached(realmName: string): Promise<RealmKeys> {
    const state = this.#realms.get(realmName);
    if (state && this.#now() - state.refreshedAt <= REFRESH_MS) return state;
    return this.#refresh(realmName);
  }

  /**
   * Reads the keys other instances may have appended since we last looked. Concurrent callers
   * share one read, so a burst of requests (unknown kids, JWKS fetches) costs one store round trip.
   */
  #refresh(realmName: string): Promise<RealmKeys> {
    return shared(this.#reading, realmName, () => this.#read(realmName));
  }

  async #read(realmName: string): Promise<RealmKeys> {
    let state = this.#realms.get(realmName);
    if (!state) {
      state = { keys: [], refreshedAt: 0, published: undefined };
      this.#realms.set(realmName, state);
    }
    for (;;) {
      const position = state.keys.length + 1;
      const next = await this.#store.get<SigningKey>(NAMESPACE, `${realmName}/${position}`);
      if (!next) break;
      // #append may have pushed its own key at this position meanwhile.
      if (state.keys.length === position - 1) state.keys.push(next);
    }
    state.refreshedAt = this.#now();
    return state;
  }
}

/** The promise already under way for `key`, or a new one from `start`, forgotten once settled. */
function shared<T>(
  pending: Map<string, Promise<T>>,
  key: string,
  start: () => Promise<T>,
): Promise<T> {
  let promise = pending.get(key);
  if (!promise) {
    promise = start().finally(() => pending.delete(key));
    pending.set(key, promise);
  }
  return promise;
}

/** Keys still in the JWKS: the newest, and each retired one until its tokens have expired. */
function publishedKeys(
  keys: readonly SigningKey[],
  realm: Realm,
  nowSeconds: number,
): SigningKey[] {
  const retention = realm.longestSignedLifetime + CLOCK_SKEW_SECONDS;
  return keys.filter((_, index) => {
    const successor = keys[index + 1];
    return successor === undefined || successor.createdAt + retention > nowSeconds;
  });
}

/**
 * The newest published key of the realm's algorithm. Not simply the newest key: while instances
 * with different `signing_alg` settings run side by side (a rolling deploy), each keeps signing
 * with its own published key instead of appending a new one on every request.
 */
function usableKey(
  keys: readonly SigningKey[],
  realm: Realm,
  nowSeconds: number,
): SigningKey | undefined {
  return publishedKeys(keys, realm, nowSeconds).findLast(
    (key) => key.alg === realm.config.signing_alg,
  );
}

function sameKeys(a: readonly SigningKey[], b: readonly SigningKey[]): boolean {
  return a.length === b.length && a.every((key, index) => key.kid === b[index]?.kid);
}
