import type { JWK } from 'jose';
import type { SigningAlgorithm } from '../config/signing-algorithms.js';
import type { Realm } from '../realms/realm.js';
import { LOADED_REALMS_LIMIT, RecentlyUsed } from '../realms/recently-used.js';
import type { Store } from '../store/store.js';
import { generateSigningKey, type KeyPairMaker, webCryptoKeyPair } from './generate.js';
import { publishedKeys, usableKey } from './key-schedule.js';
import type { KeyStore } from './key-store.js';
import type { JwsSigner, SigningKey } from './signing-key.js';

const NAMESPACE = 'signing_key';
/** How long an instance trusts its cached key list before looking for keys other instances made. */
const REFRESH_MS = 30_000;

interface RealmKeys {
  /** Keys in the order they were made; the last is current. Record ids are `{realm}/{index+1}`. */
  keys: SigningKey[];
  refreshedAt: number;
  published: { keys: SigningKey[]; jwks: readonly JWK[] } | undefined;
}

/**
 * Keys persisted through the Store, so every instance sharing the store signs with the same key
 * and publishes the same JWKS. Keys of every algorithm form one append-only sequence per realm;
 * `add` makes concurrent first-use generation and rotation safe: one writer wins each position,
 * the others adopt its key. The keys of at most `maxRealms` realms are kept in memory, the least
 * recently used forgotten first and read again when next needed.
 */
export class StoreKeyStore implements KeyStore {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #realms: RecentlyUsed<RealmKeys>;
  readonly #generating = new Map<string, Promise<SigningKey>>();
  readonly #reading = new Map<string, Promise<RealmKeys>>();
  readonly #makePair: KeyPairMaker;

  /**
   * `generateKeyPair` makes the key pairs (the provider passes its signer's, when it has one);
   * WebCrypto's by default.
   */
  constructor(
    store: Store,
    options: {
      now?: () => number;
      maxRealms?: number;
      generateKeyPair?: JwsSigner['generateKeyPair'];
    } = {},
  ) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
    this.#realms = new RecentlyUsed(options.maxRealms ?? LOADED_REALMS_LIMIT);
    this.#makePair = options.generateKeyPair ?? webCryptoKeyPair;
  }

  async currentKey(
    realm: Realm,
    alg: SigningAlgorithm = realm.config.signing_alg,
  ): Promise<SigningKey> {
    const state = await this.#cached(realm.name);
    return usableKey(state.keys, realm, alg, this.#nowSeconds()) ?? this.#appendOnce(realm, alg);
  }

  async publicKeys(realm: Realm, options: { fresh?: boolean } = {}): Promise<readonly JWK[]> {
    if (options.fresh) {
      await this.#refresh(realm.name);
      for (const alg of realm.signingAlgorithms) await this.currentKey(realm, alg);
    }
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

  async rotate(realm: Realm): Promise<SigningKey> {
    const [current] = await Promise.all(
      realm.signingAlgorithms.map((alg) => this.#append(realm, alg, { rotate: true })),
    );
    // signingAlgorithms starts with the realm's signing_alg.
    return current as SigningKey;
  }

  /**
   * One generation at a time per realm and algorithm in this process, however many requests need
   * a key (an RSA key takes tens of milliseconds to make).
   */
  #appendOnce(realm: Realm, alg: SigningAlgorithm): Promise<SigningKey> {
    return shared(this.#generating, `${realm.name}/${alg}`, () =>
      this.#append(realm, alg, { rotate: false }),
    );
  }

  async #append(
    realm: Realm,
    alg: SigningAlgorithm,
    options: { rotate: boolean },
  ): Promise<SigningKey> {
    // A first key is looked for in the list just read (a realm's first request needs one); a
    // rotation reads the list afresh.
    let state = options.rotate ? await this.#refresh(realm.name) : await this.#cached(realm.name);
    let key: SigningKey | undefined;
    for (;;) {
      // Another instance made a usable key (a first key, a scheduled rotation): use theirs.
      const theirs = options.rotate
        ? undefined
        : usableKey(state.keys, realm, alg, this.#nowSeconds());
      if (theirs) return theirs;
      key ??= await generateSigningKey(alg, this.#nowSeconds(), this.#makePair);
      const position = state.keys.length + 1;
      if (await this.#store.add(NAMESPACE, `${realm.name}/${position}`, key)) {
        // A concurrent refresh may already have read our key back.
        if (state.keys.length === position - 1) state.keys.push(key);
        return key;
      }
      // Another instance took this position first (while our key was made, or since our list
      // was read): a concurrent rotation is as good as ours; otherwise the next turn of the loop
      // adopts its key, or adds ours after it.
      state = await this.#refresh(realm.name);
      const winner = state.keys.at(-1);
      if (options.rotate && winner?.alg === alg) return winner;
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
    const state = this.#stateOf(realmName);
    const known = state.keys.length;
    // The newest key we know is read again beside the next position, in the same round trip. A
    // store that no longer holds it lost its keys (a restart without persistence, a lossy
    // failover): we forget ours, never to sign with or publish a key other instances cannot
    // read, and take the store's, or make one there as every instance does, so all agree again.
    // A realm's first read asks for two positions at once: a realm holds a key of each
    // algorithm it has signed with (its signing_alg; RS256 too once its JWKS was asked for), and
    // reading them one round trip at a time made its first token wait for each, and one more.
    const [newest, ...following] = await Promise.all([
      known > 0 ? this.#key(realmName, known) : undefined,
      ...[known + 1, known + 2]
        .slice(0, known === 0 ? 2 : 1)
        .map((position) => this.#key(realmName, position)),
    ]);
    let position = known + 1;
    if (known > 0 && newest?.kid !== state.keys[known - 1]?.kid) {
      state.keys = [];
      position = 1;
      following.length = 0;
    }
    for (;;) {
      const found = following.length > 0 ? following.shift() : await this.#key(realmName, position);
      if (!found) break;
      // #append may have pushed its own key at this position meanwhile.
      if (state.keys.length === position - 1) state.keys.push(found);
      position++;
    }
    state.refreshedAt = this.#now();
    return state;
  }

  #stateOf(realmName: string): RealmKeys {
    let state = this.#realms.get(realmName);
    if (!state) {
      state = { keys: [], refreshedAt: 0, published: undefined };
      this.#realms.set(realmName, state);
    }
    return state;
  }

  #key(realmName: string, position: number): Promise<SigningKey | undefined> {
    return this.#store.get<SigningKey>(NAMESPACE, `${realmName}/${position}`);
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

function sameKeys(a: readonly SigningKey[], b: readonly SigningKey[]): boolean {
  return a.length === b.length && a.every((key, index) => key.kid === b[index]?.kid);
}
