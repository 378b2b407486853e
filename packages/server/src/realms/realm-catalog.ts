import {
  LOADED_REALMS_LIMIT,
  OAuthError,
  type RealmInput,
  RecentlyUsed,
} from '@gatehouse-oidc/core';
import { providerRealm, type ServerRealmConfig } from '../config/server-config.js';
import type { ApiRealms, StoredRealm } from './api-realms.js';
import { RealmSecretsUnreadable } from './realm-secrets-unreadable.js';

/**
 * How long an instance trusts that no realm of the admin API changed before asking the store
 * again: a change made through another instance is in force here after at most this long.
 */
export const API_REALM_CACHE_MS = 2000;

/**
 * A realm kept in memory is read again at least this often, announced change or not: a change
 * whose announcement was lost (its instance stopped between the two writes) is in force after at
 * most this long.
 */
const UNANNOUNCED_CHANGE_MS = 60_000;

/** A realm as the server uses it, and as the provider takes it. */
export interface CatalogRealm {
  config: ServerRealmConfig;
  /** The same object for as long as the realm is unchanged: the provider builds it once. */
  input: RealmInput;
  /** Written in the config file (changes only with the file), or through the admin API. */
  source: 'file' | 'api';
}

interface ApiRealm extends CatalogRealm {
  revision: number;
}

export interface RealmCatalogOptions {
  fileRealms: readonly ServerRealmConfig[];
  apiRealms: ApiRealms;
  now: () => number;
  /** Where a realm that cannot be served is told to the operator: one line, no stack. */
  warn: (line: string) => void;
  cacheMs?: number;
  /** Realms of the API kept in memory at most, the least recently used forgotten first. */
  maxRealms?: number;
}

/**
 * Every realm of the server: those of the config file, and those written through the admin API
 * into the shared store. Whether any realm of the API changed is asked of the store at most every
 * `cacheMs`, one read however many realms there are; a realm is read again only after a change.
 * Of the API's realms, only the `maxRealms` used most recently stay in memory: a store may hold
 * any number of them.
 */
export class RealmCatalog {
  readonly #file: ReadonlyMap<string, CatalogRealm>;
  readonly #api: ApiRealms;
  readonly #now: () => number;
  readonly #cacheMs: number;
  /**
   * The last read of each realm of the API, the generation of the realms it was read at, and
   * until when it may be used without a change announced; an absent realm is not kept.
   */
  readonly #reads: RecentlyUsed<{
    generation: number;
    until: number;
    realm: Promise<ApiRealm | undefined>;
  }>;
  /** The realms' generation as last read, and until when it is trusted. */
  #generation: { value: number; until: number } | undefined;
  /** The read of the generation under way, which every lookup meanwhile waits for. */
  #generationRead: Promise<number> | undefined;
  /**
   * The names of the API's realms, sorted, as listed at a generation: paging through many
   * realms lists them once, not once a page.
   */
  #apiNames: { generation: number; names: Promise<string[]> } | undefined;
  /** The latest known version of each realm of the API, for the lookups that cannot wait. */
  readonly #latest: RecentlyUsed<ApiRealm>;
  /** The revision of each realm whose secrets did not open, once told: each is told once. */
  readonly #toldUnreadable: RecentlyUsed<number>;
  readonly #warn: (line: string) => void;

  constructor({
    fileRealms,
    apiRealms,
    now,
    warn,
    cacheMs = API_REALM_CACHE_MS,
    maxRealms = LOADED_REALMS_LIMIT,
  }: RealmCatalogOptions) {
    this.#file = new Map(
      fileRealms.map((config) => [
        config.name,
        { config, input: providerRealm(config), source: 'file' as const },
      ]),
    );
    this.#api = apiRealms;
    this.#now = now;
    this.#warn = warn;
    this.#cacheMs = cacheMs;
    this.#reads = new RecentlyUsed(maxRealms);
    this.#latest = new RecentlyUsed(maxRealms);
    this.#toldUnreadable = new RecentlyUsed(maxRealms);
  }

  /** The provider's realm loader; rejects with a 503 OAuthError for a realm it cannot serve. */
  readonly load = async (name: string): Promise<RealmInput | undefined> =>
    (await this.find(name))?.input;

  async find(name: string): Promise<CatalogRealm | undefined> {
    const file = this.#file.get(name);
    if (file) return file;
    const generation = await this.#currentGeneration();
    const cached = this.#reads.get(name);
    if (cached?.generation === generation && cached.until > this.#now()) return cached.realm;
    const realm = this.#read(name);
    this.#reads.set(name, { generation, until: this.#now() + UNANNOUNCED_CHANGE_MS, realm });
    // Neither a failure nor an absent realm is kept: unknown names must not fill the cache.
    const forget = () => {
      if (this.#reads.get(name)?.realm === realm) this.#reads.delete(name);
    };
    realm.then((found) => found ?? forget(), forget);
    return realm;
  }

  /**
   * The realm as the admin API shows it, read afresh from the store; an API realm's client
   * secrets are left sealed, so it shows whatever key wrote them.
   */
  async shown(name: string): Promise<ServerRealmConfig | undefined> {
    const file = this.#file.get(name);
    if (file) return file.config;
    const record = await this.#api.read(name);
    return record && this.#api.withoutSecrets(record.value);
  }

  /** Every realm's name: the file's in their order, then the API's. */
  async names(): Promise<string[]> {
    const generation = await this.#currentGeneration();
    let listed = this.#apiNames;
    if (listed?.generation !== generation) {
      const names = this.#api
        .names()
        .then((api) => api.filter((name) => !this.#file.has(name)).sort());
      listed = { generation, names };
      this.#apiNames = listed;
      names.catch(() => {
        if (this.#apiNames === listed) this.#apiNames = undefined;
      });
    }
    return [...this.#file.keys(), ...(await listed.names)];
  }

  /**
   * At most `limit` realm names in the order of `names()`, those after the realm named `after`
   * (a realm since deleted still marks its place), and whether more follow.
   */
  async page(limit: number, after?: string): Promise<{ names: string[]; more: boolean }> {
    const names = await this.names();
    let start = 0;
    if (after !== undefined) {
      start = this.#file.has(after)
        ? names.indexOf(after) + 1
        : firstAfter(names, after, this.#file.size);
    }
    return { names: names.slice(start, start + limit), more: start + limit < names.length };
  }

  /** The realm as last read, without waiting for the store (login pages, webhooks). */
  known(name: string): ServerRealmConfig | undefined {
    return (this.#file.get(name) ?? this.#latest.get(name))?.config;
  }

  isFileRealm(name: string): boolean {
    return this.#file.has(name);
  }

  /** After a write through this instance: the next lookup reads the store again. */
  forget(name: string): void {
    this.#reads.delete(name);
    this.#apiNames = undefined;
  }

  /** The realms' generation, read again once older than `cacheMs`, one read at a time. */
  #currentGeneration(): number | Promise<number> {
    const known = this.#generation;
    if (known && known.until > this.#now()) return known.value;
    if (!this.#generationRead) {
      const read = this.#api.generation().then((value) => {
        this.#generation = { value, until: this.#now() + this.#cacheMs };
        return value;
      });
      this.#generationRead = read;
      const done = () => {
        if (this.#generationRead === read) this.#generationRead = undefined;
      };
      read.then(done, done);
    }
    return this.#generationRead;
  }

  async #read(name: string): Promise<ApiRealm | undefined> {
    const record = await this.#api.read(name);
    if (!record) {
      this.#latest.delete(name);
      this.#toldUnreadable.delete(name);
      return undefined;
    }
    const latest = this.#latest.get(name);
    if (latest?.revision === record.revision) return latest;
    const config = this.#decode(name, record.revision, record.value);
    const realm: ApiRealm = {
      config,
      input: providerRealm(config),
      source: 'api',
      revision: record.revision,
    };
    this.#latest.set(name, realm);
    return realm;
  }

  /**
   * The realm's config, or, when its secrets do not open, a 503 for the request after telling the
   * operator why (once per revision: every request to the realm comes here).
   */
  #decode(name: string, revision: number, stored: StoredRealm): ServerRealmConfig {
    try {
      const config = this.#api.decode(name, stored);
      this.#toldUnreadable.delete(name);
      return config;
    } catch (error) {
      if (!(error instanceof RealmSecretsUnreadable)) throw error;
      this.#latest.delete(name);
      if (this.#toldUnreadable.get(name) !== revision) {
        this.#toldUnreadable.set(name, revision);
        this.#warn(`[gatehouse] ${error.message}\n`);
      }
      throw new OAuthError('temporarily_unavailable', 'this realm is temporarily unavailable', {
        cause: error,
      });
    }
  }
}

/** The index of the first of `names` after `name`, those from `from` on being sorted. */
function firstAfter(names: readonly string[], name: string, from: number): number {
  let low = from;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((names[middle] as string) <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}
