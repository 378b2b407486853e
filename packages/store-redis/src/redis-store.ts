import { randomFillSync } from 'node:crypto';
import {
  type ConsumeResult,
  type RecordKey,
  type RecordOptions,
  type Revised,
  type Store,
  StoreUnavailableError,
} from '@gatehouse/core';
import { Redis } from 'ioredis';
import { isUnavailable, unavailable } from './errors.js';
import { KeyLayout, splitMember } from './keys.js';
import { type RedisStoreOptions, validateOptions } from './options.js';
import {
  ADD_SCRIPT,
  CLAIM_GRANT_SCRIPT,
  CONSUME_SCRIPT,
  INDEX_SCRIPT,
  REPLACE_SCRIPT,
  REVOKE_RECORD_SCRIPT,
  SET_SCRIPT,
} from './scripts.js';

/** The scripts ioredis defines as commands on the client (EVALSHA, EVAL when not loaded). */
interface ScriptCommands {
  gatehouseSet(
    key: string,
    json: string,
    revision: string,
    pttl: string,
    grant?: string,
  ): Promise<number>;
  gatehouseAdd(
    key: string,
    json: string,
    revision: string,
    pttl: string,
    grant?: string,
  ): Promise<number>;
  gatehouseConsume(key: string): Promise<[string, number] | null>;
  gatehouseReplace(key: string, json: string, expected: string, revision: string): Promise<number>;
  gatehouseIndex(key: string, member: string, pttl: string): Promise<number>;
  gatehouseClaimGrant(index: string, revoking: string): Promise<string[]>;
  gatehouseRevokeRecord(key: string, grant: string): Promise<number>;
}

/** Each script with the number of keys it declares. */
const SCRIPTS = {
  gatehouseSet: { lua: SET_SCRIPT, keys: 1 },
  gatehouseAdd: { lua: ADD_SCRIPT, keys: 1 },
  gatehouseConsume: { lua: CONSUME_SCRIPT, keys: 1 },
  gatehouseReplace: { lua: REPLACE_SCRIPT, keys: 1 },
  gatehouseIndex: { lua: INDEX_SCRIPT, keys: 1 },
  gatehouseClaimGrant: { lua: CLAIM_GRANT_SCRIPT, keys: 2 },
  gatehouseRevokeRecord: { lua: REVOKE_RECORD_SCRIPT, keys: 1 },
};

/** Reconnection backoff: 100 ms doubling up to 1 s, for ever, so the store recovers by itself. */
const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** attempt, 1000);

/**
 * A `Store` on Redis, shared by every Gatehouse instance that points at the same server and
 * prefix. Every method is one round trip, except `listGrant` (two: the grant's index, then its
 * records) and `revokeGrant` (three: then the revoking set); expiry is Redis's own. Where a method
 * sends several commands at once it relies on Redis running one connection's commands in order.
 * Calls never queue while Redis is away: one that finds no connection waits at most
 * `commandTimeoutMs` for it to come back, and one whose reply does not come within
 * `commandTimeoutMs` fails; both with `StoreUnavailableError`, as do the replies saying Redis
 * cannot serve now (LOADING, OOM, READONLY…). Other errors (WRONGTYPE, NOPERM…) are thrown as
 * they are. The client reconnects by itself. docs/storage-and-keys.md describes the key layout.
 */
export class RedisStore implements Store {
  readonly #client: Redis & ScriptCommands;
  readonly #keys: KeyLayout;
  readonly #timeoutMs: number;
  /** The last connection error, reported as the cause when a call finds no connection. */
  #lastError: unknown;
  /** Settles on the client's next `ready` or `end`; shared by every call waiting for it. */
  #connection: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisStoreOptions) {
    const { url, keyPrefix, commandTimeoutMs } = validateOptions(options);
    this.#keys = new KeyLayout(keyPrefix);
    this.#timeoutMs = commandTimeoutMs;
    const scripts = Object.fromEntries(
      Object.entries(SCRIPTS).map(([name, { lua, keys }]) => [name, { lua, numberOfKeys: keys }]),
    );
    this.#client = new Redis(url, {
      scripts,
      commandTimeout: commandTimeoutMs,
      // A connection that stops answering is dropped and made again, rather than timing out
      // every call until TCP keep-alive notices.
      socketTimeout: commandTimeoutMs,
      connectTimeout: Math.max(commandTimeoutMs, 1000),
      retryStrategy: reconnectDelay,
      // No offline queue and no resending: a command Redis may already have run (a consume) is
      // never run a second time behind its caller's back, and nothing waits unboundedly.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectionName: 'gatehouse',
      // Commands issued in one event-loop turn leave in one write: under load this saves most
      // of the per-command syscalls, on both sides (docs/decisions.md has the numbers).
      enableAutoPipelining: true,
      // After a failover the old primary turns replica and refuses writes: find the new one.
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    }) as Redis & ScriptCommands;
    this.#client.on('error', (error: unknown) => {
      this.#lastError = error;
    });
  }

  async get<T>(namespace: string, id: string): Promise<T | undefined> {
    const key = this.#keys.record(namespace, id);
    const json = await this.#call(() => this.#client.hget(key, 'v'));
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  async set<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<void> {
    const { json, pttl, member, key, revision } = this.#writeOf(namespace, id, value, options);
    if (pttl === EXPIRED) {
      await this.#call(() => this.#client.del(key));
      return;
    }
    const { grantId } = options;
    await this.#call<unknown>(() =>
      grantId === undefined
        ? this.#client.gatehouseSet(key, json, revision, pttl)
        : // Record first, then index, in one round trip on one connection. A revokeGrant that
          // runs in between leaves the record in the re-created index, never outside any index.
          Promise.all([
            this.#client.gatehouseSet(key, json, revision, pttl, grantId),
            this.#client.gatehouseIndex(this.#keys.grantIndex(grantId), member, pttl),
          ]),
    );
  }

  async add<T>(
    namespace: string,
    id: string,
    value: T,
    options: RecordOptions = {},
  ): Promise<boolean> {
    const { json, pttl, member, key, revision } = this.#writeOf(namespace, id, value, options);
    if (pttl === EXPIRED) {
      // Written and expired in the same instant: it wins only if nothing live holds the id.
      return (await this.#call(() => this.#client.exists(key))) === 0;
    }
    const { grantId } = options;
    if (grantId === undefined)
      return (await this.#call(() => this.#client.gatehouseAdd(key, json, revision, pttl))) === 1;
    // Indexed even when the add loses: a member whose record is not in the grant is ignored.
    const [added] = await this.#call(() =>
      Promise.all([
        this.#client.gatehouseAdd(key, json, revision, pttl, grantId),
        this.#client.gatehouseIndex(this.#keys.grantIndex(grantId), member, pttl),
      ]),
    );
    return added === 1;
  }

  /** What set and add both write: the value, its expiry, its keys and a new revision. */
  #writeOf(namespace: string, id: string, value: unknown, options: RecordOptions) {
    const member = this.#keys.member(namespace, id);
    return {
      json: serialise(value),
      pttl: expiry(options.ttlSeconds),
      member,
      key: this.#keys.recordOfMember(member),
      revision: nextRevision(),
    };
  }

  async consume<T>(namespace: string, id: string): Promise<ConsumeResult<T> | undefined> {
    const key = this.#keys.record(namespace, id);
    const reply = await this.#call(() => this.#client.gatehouseConsume(key));
    if (reply === null) return undefined;
    return { value: JSON.parse(reply[0]) as T, firstUse: reply[1] === 1 };
  }

  async read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    const key = this.#keys.record(namespace, id);
    const [json, revision] = await this.#call(() => this.#client.hmget(key, 'v', 'r'));
    if (json == null || revision == null) return undefined;
    return { value: JSON.parse(json) as T, revision: Number(revision) };
  }

  async replace<T>(namespace: string, id: string, revision: number, value: T): Promise<boolean> {
    const json = serialise(value);
    const key = this.#keys.record(namespace, id);
    const replaced = await this.#call(() =>
      this.#client.gatehouseReplace(key, json, String(revision), nextRevision()),
    );
    return replaced === 1;
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    // The grant's index keeps the member: listGrant and revokeGrant skip members whose record
    // is gone or has moved to another grant.
    const key = this.#keys.record(namespace, id);
    return (await this.#call(() => this.#client.del(key))) === 1;
  }

  async listGrant(grantId: string): Promise<RecordKey[]> {
    const members = await this.#call(() =>
      this.#client.zunion(2, this.#keys.grantIndex(grantId), this.#keys.grantRevoking(grantId)),
    );
    if (members.length === 0) return [];
    const grants = await this.#call(() =>
      Promise.all(
        members.map((member) => this.#client.hget(this.#keys.recordOfMember(member), 'g')),
      ),
    );
    return members.filter((_, index) => grants[index] === grantId).map(splitMember);
  }

  async revokeGrant(grantId: string): Promise<number> {
    const revoking = this.#keys.grantRevoking(grantId);
    const members = await this.#call(() =>
      this.#client.gatehouseClaimGrant(this.#keys.grantIndex(grantId), revoking),
    );
    if (members.length === 0) return 0;
    const removed = await this.#call(() =>
      Promise.all(
        members.map((member) =>
          this.#client.gatehouseRevokeRecord(this.#keys.recordOfMember(member), grantId),
        ),
      ),
    );
    // Only once every deletion has answered, so members stay claimable by a retry until their
    // records are gone. Sent with them, it could overtake one: ioredis re-sends a script Redis
    // answered NOSCRIPT (after a restart or a SCRIPT FLUSH), and that copy runs after the ZREM.
    await this.#call(() => this.#client.zrem(revoking, members));
    return removed.reduce((sum, count) => sum + count, 0);
  }

  async ping(): Promise<void> {
    await this.#call(() => this.#client.ping());
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#client.status === 'ready') {
      // QUIT is never auto-pipelined: let the commands of this turn leave before it.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await this.#client.quit();
        return;
      } catch {
        // Redis went away meanwhile: drop the connection below.
      }
    }
    this.#client.disconnect();
  }

  /**
   * Runs `command` once a connection is ready, waiting at most the timeout for one, and turns
   * the failures of Redis or the network into `StoreUnavailableError`.
   */
  async #call<R>(command: () => Promise<R>): Promise<R> {
    if (this.#closed) throw new StoreUnavailableError('the Redis store is closed');
    if (this.#client.status !== 'ready') await this.#awaitConnection();
    try {
      return await command();
    } catch (error) {
      if (isUnavailable(error)) throw unavailable(error, this.#timeoutMs);
      throw error;
    }
  }

  async #awaitConnection(): Promise<void> {
    if (this.#client.status === 'end') throw new StoreUnavailableError('the Redis store is closed');
    this.#connection ??= new Promise<void>((resolve) => {
      const settle = () => {
        this.#client.off('ready', settle).off('end', settle);
        this.#connection = undefined;
        resolve();
      };
      this.#client.on('ready', settle).on('end', settle);
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.#timeoutMs);
    });
    const outcome = await Promise.race([this.#connection, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout' || this.#client.status !== 'ready')
      throw new StoreUnavailableError(`no connection to Redis within ${this.#timeoutMs} ms`, {
        cause: this.#lastError,
      });
  }
}

/** `pttl` for a record that is expired as soon as written (a TTL of zero or less). */
const EXPIRED = '0';

/** Milliseconds as the scripts take them: '' for no expiry. */
function expiry(ttlSeconds: number | undefined): string {
  if (ttlSeconds === undefined || ttlSeconds === Number.POSITIVE_INFINITY) return '';
  if (Number.isNaN(ttlSeconds)) throw new TypeError('ttlSeconds must be a number');
  return ttlSeconds <= 0 ? EXPIRED : String(Math.ceil(ttlSeconds * 1000));
}

function serialise(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('the value of a record must be JSON-serialisable');
  return json;
}

/**
 * Revisions are random 53-bit integers, not counters: a counter shared by all records would be
 * one key every write touches (a single Cluster slot and a hot spot), and a counter per record
 * would start again when the record is re-created. The scripts make sure a write never keeps the
 * revision it replaces; a revision read earlier repeats with probability 2^-53 per write.
 */
const randomWords = new Uint32Array(512);
let nextWord = randomWords.length;
function nextRevision(): string {
  if (nextWord === randomWords.length) {
    randomFillSync(randomWords);
    nextWord = 0;
  }
  const high = (randomWords[nextWord++] as number) & 0x1f_ffff;
  const low = randomWords[nextWord++] as number;
  return String(high * 0x1_0000_0000 + low);
}
