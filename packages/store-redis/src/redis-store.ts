import { randomFillSync } from 'node:crypto';
import {
  type CappedRecordOptions,
  type ConditionalConsumeResult,
  type ConsumeResult,
  checkCappedOptions,
  consumeIfStepwise,
  type FieldConditions,
  REVOKED_GRANT_SECONDS,
  type RecordKey,
  type RecordOptions,
  type ReplaceOptions,
  type Revised,
  type Store,
  type StoreMetrics,
  StoreUnavailableError,
} from '@gatehouse-oidc/core';
import type { Redis } from 'ioredis';
import { createClient } from './client.js';
import { isUnavailable, unavailable } from './errors.js';
import { KeyLayout, splitMember } from './keys.js';
import { type RedisStoreOptions, validateOptions } from './options.js';
import { ReplicaAcknowledgement } from './replication.js';
import {
  ADD_SCRIPT,
  CAP_SCRIPT,
  CLAIM_GRANT_SCRIPT,
  CONSUME_IF_SCRIPT,
  CONSUME_SCRIPT,
  DROP_CAPPED_SCRIPT,
  INDEX_SCRIPT,
  REPLACE_SCRIPT,
  REVOKE_RECORD_SCRIPT,
  SET_CAPPED_SCRIPT,
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
  gatehouseConsume(key: string, note?: string): Promise<[string, number, string | null] | null>;
  gatehouseConsumeIf(key: string, fields: string): Promise<[string, number, number] | null>;
  gatehouseReplace(
    key: string,
    json: string,
    expected: string,
    revision: string,
    pttl: string,
  ): Promise<number | string>;
  /** `membersAndPttls`: each member followed by its pttl. */
  gatehouseIndex(key: string, closed: string, ...membersAndPttls: string[]): Promise<number>;
  gatehouseClaimGrant(
    index: string,
    revoking: string,
    closed: string,
    closedMs: string,
  ): Promise<string[]>;
  gatehouseRevokeRecord(key: string, grant: string): Promise<number>;
  gatehouseSetCapped(
    key: string,
    json: string,
    revision: string,
    pttl: string,
    caps: string,
  ): Promise<number>;
  gatehouseCap(key: string, member: string, max: string, pttl: string): Promise<string[]>;
  gatehouseDropCapped(key: string, cap: string): Promise<string | null>;
}

/** Each script with the number of keys it declares. */
const SCRIPTS = {
  gatehouseSet: { lua: SET_SCRIPT, keys: 1 },
  gatehouseAdd: { lua: ADD_SCRIPT, keys: 1 },
  gatehouseConsume: { lua: CONSUME_SCRIPT, keys: 1 },
  gatehouseConsumeIf: { lua: CONSUME_IF_SCRIPT, keys: 1 },
  gatehouseReplace: { lua: REPLACE_SCRIPT, keys: 1 },
  gatehouseIndex: { lua: INDEX_SCRIPT, keys: 2 },
  gatehouseClaimGrant: { lua: CLAIM_GRANT_SCRIPT, keys: 3 },
  gatehouseRevokeRecord: { lua: REVOKE_RECORD_SCRIPT, keys: 1 },
  gatehouseSetCapped: { lua: SET_CAPPED_SCRIPT, keys: 1 },
  gatehouseCap: { lua: CAP_SCRIPT, keys: 1 },
  gatehouseDropCapped: { lua: DROP_CAPPED_SCRIPT, keys: 1 },
};

/**
 * A `Store` on Redis, shared by every Gatehouse instance that points at the same server (or
 * Cluster, or Sentinel group) and prefix. Every method is one round trip, except `listGrant`
 * (two: the grant's index, then its records), `revokeGrant` (three: then the revoking set), a
 * write that finds its grant closed (two: then the undo) and a `consumeIf` of a record `cjson`
 * cannot read (three: `consumeIfStepwise`); expiry is Redis's own. Where a method
 * writes a record and then its grant's index or its caps, keys of two Cluster slots, it sends both
 * at once on one connection, where Redis runs them in order; on a Cluster it sends the second
 * once the first has answered. On a Cluster or a Sentinel group a write then waits for a replica
 * to acknowledge it (`waitForReplicas`; see replication.ts): one more round trip, shared by the
 * writes that finish in the same turn.
 * Calls never queue while Redis is away: one that finds no connection waits at most
 * `commandTimeoutMs` for it to come back, and one whose reply does not come within
 * `commandTimeoutMs` fails; both with `StoreUnavailableError`, as do the replies saying Redis
 * cannot serve now (LOADING, OOM, READONLY…). Other errors (WRONGTYPE, NOPERM…) are thrown as
 * they are. The client reconnects by itself. docs/storage-and-keys.md describes the key layout.
 */
export class RedisStore implements Store {
  /** A Cluster client when the URL names one: its commands are a standalone client's. */
  readonly #client: Redis & ScriptCommands;
  /** Whether commands sent one after the other run in that order (see createClient). */
  readonly #inOrder: boolean;
  readonly #keys: KeyLayout;
  readonly #timeoutMs: number;
  /** What every write awaits before it is reported done (nothing when no replica is awaited). */
  readonly #replicated: ReplicaAcknowledgement;
  /** The last connection error, reported as the cause when a call finds no connection. */
  #lastError: unknown;
  /** Settles on the client's next `ready` or `end`; shared by every call waiting for it. */
  #connection: Promise<void> | undefined;
  #closed = false;
  /** The index additions of the current run of microtasks, per grant (see #index). */
  readonly #indexBatches = new Map<string, IndexBatch>();
  readonly #metrics = { evicted: 0, shed: 0, refused: 0 };

  constructor(options: RedisStoreOptions) {
    const { topology, keyPrefix, commandTimeoutMs, waitForReplicas } = validateOptions(options);
    this.#keys = new KeyLayout(keyPrefix);
    this.#timeoutMs = commandTimeoutMs;
    const scripts = Object.fromEntries(
      Object.entries(SCRIPTS).map(([name, { lua, keys }]) => [name, { lua, numberOfKeys: keys }]),
    );
    const { client, inOrder } = createClient(topology, commandTimeoutMs, scripts);
    this.#client = client as Redis & ScriptCommands;
    this.#inOrder = inOrder;
    this.#replicated = new ReplicaAcknowledgement(client, waitForReplicas, commandTimeoutMs);
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
      await this.#replicated.of([key]);
      return;
    }
    const { grantId } = options;
    if (grantId === undefined) {
      await this.#call(() => this.#client.gatehouseSet(key, json, revision, pttl));
      await this.#replicated.of([key]);
      return;
    }
    // Record first, then index. A revokeGrant that claims the index in between finds the grant
    // closed for the index: the record is then undone here.
    const [, indexed] = await this.#call(() => {
      const written = this.#client.gatehouseSet(key, json, revision, pttl, grantId);
      return Promise.all([written, this.#index(grantId, member, pttl, written)]);
    });
    if (indexed === 0) await this.#undo(key, grantId);
    await this.#replicated.of([key, this.#keys.grantIndex(grantId)]);
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
    if (grantId === undefined) {
      const added = await this.#call(() => this.#client.gatehouseAdd(key, json, revision, pttl));
      // A losing add wrote nothing its caller relies on: it needs no replica to refuse.
      if (added === 1) await this.#replicated.of([key]);
      return added === 1;
    }
    // Indexed even when the add loses: a member whose record is not in the grant is ignored.
    const [added, indexed] = await this.#call(() => {
      const written = this.#client.gatehouseAdd(key, json, revision, pttl, grantId);
      return Promise.all([written, this.#index(grantId, member, pttl, written)]);
    });
    if (added !== 1) return false;
    if (indexed === 0) await this.#undo(key, grantId);
    await this.#replicated.of([key, this.#keys.grantIndex(grantId)]);
    return indexed === 1;
  }

  /**
   * Adds a member to its grant's index, after its record's write (`written`): 1, or 0 when the
   * grant is closed. The members one grant gets in the same run of microtasks (a token
   * response's access and refresh tokens) go in one script call, after the writes of their
   * records: one command less per extra record, for Redis and for this process. ioredis sends a
   * turn's commands together on `setImmediate`, so on one connection the batch still leaves in
   * the same write as the records; on a Cluster it leaves once they have all answered, failed
   * ones too (a write whose reply was lost may have landed: its record is indexed all the same).
   */
  #index(
    grantId: string,
    member: string,
    pttl: string,
    written: Promise<unknown> = Promise.resolve(),
  ): Promise<number> {
    let batch = this.#indexBatches.get(grantId);
    if (batch === undefined || batch.membersAndPttls.length >= MAX_INDEX_BATCH * 2) {
      const created: IndexBatch = { membersAndPttls: [], writes: [], indexed: Promise.resolve(0) };
      created.indexed = Promise.resolve().then(async () => {
        if (this.#indexBatches.get(grantId) === created) this.#indexBatches.delete(grantId);
        if (!this.#inOrder) await Promise.allSettled(created.writes);
        return this.#client.gatehouseIndex(
          this.#keys.grantIndex(grantId),
          this.#keys.grantClosed(grantId),
          ...created.membersAndPttls,
        );
      });
      this.#indexBatches.set(grantId, created);
      batch = created;
    }
    batch.membersAndPttls.push(member, pttl);
    batch.writes.push(written);
    return batch.indexed;
  }

  /** Removes a record just written under a grant that turned out to be closed. */
  async #undo(key: string, grantId: string): Promise<void> {
    await this.#call(() => this.#client.gatehouseRevokeRecord(key, grantId));
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

  async consume<T, N = unknown>(
    namespace: string,
    id: string,
    note?: N,
  ): Promise<ConsumeResult<T, N> | undefined> {
    const key = this.#keys.record(namespace, id);
    const noteJson = note === undefined ? undefined : serialise(note);
    const reply = await this.#call(() =>
      noteJson === undefined
        ? this.#client.gatehouseConsume(key)
        : this.#client.gatehouseConsume(key, noteJson),
    );
    if (reply === null) return undefined;
    // A replay changed nothing: it needs no replica to refuse.
    if (reply[1] === 1) await this.#replicated.of([key]);
    const result: ConsumeResult<T, N> = {
      value: JSON.parse(reply[0]) as T,
      firstUse: reply[1] === 1,
    };
    if (reply[2] !== null) result.note = JSON.parse(reply[2]) as N;
    return result;
  }

  async consumeIf<T>(
    namespace: string,
    id: string,
    fields: FieldConditions,
  ): Promise<ConditionalConsumeResult<T> | undefined> {
    const key = this.#keys.record(namespace, id);
    const reply = await this.#call(() =>
      this.#client.gatehouseConsumeIf(key, JSON.stringify(fields)),
    );
    if (reply === null) return undefined;
    if (reply[2] === UNREADABLE) return consumeIfStepwise<T>(this, namespace, id, fields);
    if (reply[1] === 1) await this.#replicated.of([key]);
    return { value: JSON.parse(reply[0]) as T, firstUse: reply[1] === 1, matched: reply[2] === 1 };
  }

  async read<T>(namespace: string, id: string): Promise<Revised<T> | undefined> {
    const key = this.#keys.record(namespace, id);
    const [json, revision] = await this.#call(() => this.#client.hmget(key, 'v', 'r'));
    if (json == null || revision == null) return undefined;
    return { value: JSON.parse(json) as T, revision: Number(revision) };
  }

  async replace<T>(
    namespace: string,
    id: string,
    revision: number,
    value: T,
    options: ReplaceOptions = {},
  ): Promise<boolean> {
    const json = serialise(value);
    const member = this.#keys.member(namespace, id);
    const key = this.#keys.recordOfMember(member);
    const pttl = options.ttlSeconds === undefined ? '' : expiry(options.ttlSeconds);
    const replaced = await this.#call(() =>
      this.#client.gatehouseReplace(key, json, String(revision), nextRevision(), pttl),
    );
    // A record that now lives longer must stay listed in its grant's index as long (a renewed
    // session in its user's, say). The index only raises scores; a closed grant takes none.
    if (typeof replaced === 'string') {
      await this.#call(() => this.#index(replaced, member, pttl));
      await this.#replicated.of([key, this.#keys.grantIndex(replaced)]);
    } else if (replaced !== 0) await this.#replicated.of([key]);
    return replaced !== 0;
  }

  /**
   * Two round trips when a cap overflows, one otherwise (on a Cluster, one more): the record and
   * then its place in each cap (one script per key, so each touches one Cluster slot), then the
   * deletion of the records popped from the caps.
   */
  async setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number> {
    checkCappedOptions(options);
    const { json, pttl, member, key, revision } = this.#writeOf(namespace, id, value, options);
    const tags = options.caps.map((cap) => `\n${encodeURIComponent(cap.key)}\n`);
    const [, ...popped] = await this.#call(async () => {
      const written = this.#client.gatehouseSetCapped(key, json, revision, pttl, tags.join(''));
      if (!this.#inOrder) await written;
      return Promise.all([
        written,
        ...options.caps.map((cap) =>
          this.#client.gatehouseCap(this.#keys.cap(cap.key), member, String(cap.max), pttl),
        ),
      ]);
    });
    const drops = popped.flatMap((members, index) =>
      (members as string[]).map((victim) => ({ victim, tag: tags[index] as string })),
    );
    const written = [key, ...options.caps.map((cap) => this.#keys.cap(cap.key))];
    if (drops.length === 0) {
      await this.#replicated.of(written);
      return 0;
    }
    const deleted = await this.#call(() =>
      Promise.all(
        drops.map(({ victim, tag }) =>
          this.#client.gatehouseDropCapped(this.#keys.recordOfMember(victim), tag),
        ),
      ),
    );
    // A dropped record leaves its other caps too: otherwise each of them (a browser's, say, of
    // which a flood without cookies makes one per request) would live on with it until it expires.
    const leftIn = drops.flatMap(({ victim, tag }, index) => {
      const caps = deleted[index];
      return caps ? capKeysOf(caps, tag).map((cap) => ({ victim, cap })) : [];
    });
    if (leftIn.length > 0) {
      await this.#call(() =>
        Promise.all(
          leftIn.map(({ victim, cap }) => this.#client.zrem(this.#keys.cap(cap), victim)),
        ),
      );
    }
    await this.#replicated.of([
      ...written,
      ...drops.map(({ victim }) => this.#keys.recordOfMember(victim)),
      ...leftIn.map(({ cap }) => this.#keys.cap(cap)),
    ]);
    const dropped = deleted.filter((caps) => caps).length;
    this.#metrics.evicted += dropped;
    return dropped;
  }

  metrics(): StoreMetrics {
    return { ...this.#metrics };
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    // The grant's index keeps the member: listGrant and revokeGrant skip members whose record
    // is gone or has moved to another grant.
    const key = this.#keys.record(namespace, id);
    const deleted = await this.#call(() => this.#client.del(key));
    // Even when another call deleted it first: its caller may answer before that deletion is
    // on a replica, and this one's must not.
    await this.#replicated.of([key]);
    return deleted === 1;
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

  async revokeGrant(grantId: string): Promise<RecordKey[]> {
    const revoking = this.#keys.grantRevoking(grantId);
    const members = await this.#call(() =>
      this.#client.gatehouseClaimGrant(
        this.#keys.grantIndex(grantId),
        revoking,
        this.#keys.grantClosed(grantId),
        CLOSED_MS,
      ),
    );
    if (members.length === 0) {
      await this.#replicated.of([revoking]);
      return [];
    }
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
    await this.#replicated.of([
      revoking,
      ...members.map((member) => this.#keys.recordOfMember(member)),
    ]);
    return members.filter((_, index) => removed[index] === 1).map(splitMember);
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

const CLOSED_MS = String(REVOKED_GRANT_SECONDS * 1000);

/** CONSUME_IF_SCRIPT's answer for a record or conditions cjson cannot read: judged here. */
const UNREADABLE = -1;

/** Members of one grant waiting to be indexed together, and the script call's answer. */
interface IndexBatch {
  readonly membersAndPttls: string[];
  /** The writes of the members' records, which the index call follows. */
  readonly writes: Promise<unknown>[];
  indexed: Promise<number>;
}

/** Members per index call at most, far below Lua's limit on the arguments of one call. */
const MAX_INDEX_BATCH = 64;

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

/** The cap keys of a record's field `k` (each URI-encoded between newlines) but `except`'s. */
function capKeysOf(caps: string, except: string): string[] {
  return caps
    .split('\n')
    .filter((encoded) => encoded !== '' && `\n${encoded}\n` !== except)
    .map(decodeURIComponent);
}
