import { StoreUnavailableError } from '@gatehouse-oidc/core';
import type { Server } from '@gatehouse-oidc/server';
import { RedisStore } from '@gatehouse-oidc/store-redis';
import { expect } from 'vitest';
import { type Issued, LifecycleWorld } from '../lifecycle/lifecycle-world.js';
import { basicAuthorization, form, SECRETS } from '../support/fixtures.js';
import type { StoreUnderTest } from '../support/store-backends.js';

/**
 * Two standalone servers (A and B) behind one issuer on a store that fails over while they
 * serve: each worker keeps getting codes silently from its own session and, in turn, redeems one
 * at A and B at once (a replay race), or redeems one, rotates the refresh token it got and
 * revokes the new one, alternating the servers. Each worker has a session of its own since a
 * replay revokes its session's grant, which the next code then replaces. What the servers answered 200 is what they promised; after the
 * fault, the checks hold them to it.
 */

/** Workers running rounds side by side. */
const WORKERS = 4;
/** Full rounds (every step answered 200) each server must serve after the fault. */
const RECOVERED_ROUNDS = 3;
/** Rotations the load makes at least, so that the checks judge enough of them. */
const MIN_ROTATIONS = 12;

/**
 * The store timeout of the worlds on a replicated Redis, whose writes wait for the replica
 * (`WAIT`, half of it). With the suite loading both cores, a healthy replica's acknowledgement
 * once came later than the 500 ms of a 1000 ms timeout, and the world's first realm write, before
 * any fault, was answered 503.
 */
export const REPLICATED_REDIS_TIMEOUT_MS = 2000;

/** What the load saw, to judge once the fault is over. */
export interface LoadRecord {
  /** Every code and the statuses of its two simultaneous redemptions. */
  codes: Map<string, number[]>;
  /** Refresh tokens whose rotation was answered 200: they must never work again. */
  rotated: string[];
  /** Refresh tokens whose revocation was answered 200: they must never work again. */
  revoked: string[];
  /** Every status answered, counted. */
  statuses: Map<number, number>;
  /** Full rounds served after the fault, per server. */
  recovered: Map<Server, number>;
}

export class FailoverWorld {
  private constructor(
    readonly world: LifecycleWorld,
    readonly sessions: readonly Issued[],
  ) {}

  /** A and B on `backend`, alice signed in once per worker (a session yields codes silently). */
  static async start(backend: StoreUnderTest): Promise<FailoverWorld> {
    const world = await LifecycleWorld.start(backend);
    const sessions: Issued[] = [];
    for (let worker = 0; worker < WORKERS; worker++) sessions.push(await world.issue());
    return new FailoverWorld(world, sessions);
  }

  close(): Promise<void> {
    return this.world.close();
  }

  /** Runs the load while `fault` runs, and on until both servers have recovered. */
  async during(fault: () => Promise<void>): Promise<LoadRecord> {
    const record: LoadRecord = {
      codes: new Map(),
      rotated: [],
      revoked: [],
      statuses: new Map(),
      recovered: new Map(),
    };
    let faultOver = false;
    /** Set when the run fails: the workers stop rather than outlive the test. */
    let stopped = false;
    const recovered = () =>
      record.rotated.length >= MIN_ROTATIONS &&
      [this.world.a, this.world.b].every(
        (server) => (record.recovered.get(server) ?? 0) >= RECOVERED_ROUNDS,
      );
    const worker = async (index: number) => {
      const session = this.sessions[index] as Issued;
      for (let round = index; !stopped && !(faultOver && recovered()); round++) {
        const [first, second] =
          round % 2 === 0 ? [this.world.a, this.world.b] : [this.world.b, this.world.a];
        const full = await this.#round(session, first, second, record, round % 4 < 2);
        if (full && faultOver) record.recovered.set(first, (record.recovered.get(first) ?? 0) + 1);
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
    // Some load before the fault, so it strikes requests in flight.
    await new Promise((resolve) => setTimeout(resolve, 300));
    let timer: NodeJS.Timeout | undefined;
    try {
      try {
        await fault();
      } finally {
        faultOver = true;
      }
      await Promise.race([
        Promise.all(workers),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error('the servers did not recover within 30 s')),
            30_000,
          );
        }),
      ]);
    } catch (error) {
      stopped = true;
      await Promise.allSettled(workers);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return record;
  }

  /**
   * One round, a replay race or a token chain (the race revokes the grant of the code it
   * replays, so its tokens are no use); true when every step was answered as it should.
   */
  async #round(
    session: Issued,
    first: Server,
    second: Server,
    record: LoadRecord,
    race: boolean,
  ): Promise<boolean> {
    const count = (status: number) =>
      record.statuses.set(status, (record.statuses.get(status) ?? 0) + 1);
    const code = await this.world.silentCode(session.browser, first);
    if (code === undefined) {
      count(0);
      return false;
    }
    const redemptions = await Promise.all(
      (race ? [first, second] : [first]).map((server) => this.world.exchange(server, code)),
    );
    const statuses = redemptions.map((answer) => answer.statusCode);
    record.codes.set(code, statuses);
    for (const status of statuses) count(status);
    const redeemed = redemptions.find((answer) => answer.statusCode === 200);
    if (race) return redeemed !== undefined && statuses.includes(400);
    if (!redeemed) return false;
    const refreshToken: string = redeemed.json().refresh_token;
    const rotation = await this.world.refresh(second, refreshToken);
    count(rotation.statusCode);
    if (rotation.statusCode !== 200) return false;
    record.rotated.push(refreshToken);
    const next: string = rotation.json().refresh_token;
    const revocation = await this.world.post(first, 'revoke', form({ token: next }), {
      authorization: basicAuthorization('web', SECRETS.basic),
    });
    count(revocation.statusCode);
    if (revocation.statusCode !== 200) return false;
    record.revoked.push(next);
    return true;
  }

  /**
   * Holds the servers to what they answered: no code redeemed twice, then or now; no rotated or
   * revoked refresh token accepted now; no answer but 200, 400 and 503 (a failing store is a
   * 503, never a 500). A code whose every redemption failed was promised nothing: its use may
   * have been lost with a killed primary before a replica had it, and a client may try it again.
   */
  async expectNothingRevived(record: LoadRecord): Promise<void> {
    const unexpected = [...record.statuses.keys()].filter(
      (status) => ![0, 200, 400, 503].includes(status),
    );
    expect(unexpected, JSON.stringify([...record.statuses])).toEqual([]);
    const twice = [...record.codes.values()].filter(
      (statuses) => statuses.filter((status) => status === 200).length > 1,
    );
    expect(twice).toEqual([]);
    // Enough happened for the checks to mean something.
    expect(record.codes.size).toBeGreaterThan(10);
    expect(record.rotated.length).toBeGreaterThanOrEqual(MIN_ROTATIONS);
    const { a, b } = this.world;
    const redeemed = [...record.codes].filter(([, statuses]) => statuses.includes(200));
    const replays = await Promise.all(
      redeemed.map(([code], index) => this.world.exchange(index % 2 ? a : b, code)),
    );
    expect(replays.filter((answer) => answer.statusCode === 200)).toEqual([]);
    const refreshes = await Promise.all(
      [...record.rotated, ...record.revoked].map((token, index) =>
        this.world.refresh(index % 2 ? a : b, token),
      ),
    );
    expect(refreshes.map((answer) => answer.statusCode).filter((status) => status !== 400)).toEqual(
      [],
    );
  }
}

/**
 * With the replicas of a Redis Cluster or Sentinel group frozen by `freeze`, a code's consume
 * fails as unavailable instead of being reported done, and once they are back (`settle`) the
 * code stays used: the consume stood on the primary.
 */
export async function expectUnreplicatedWritesRefused(
  url: string,
  freeze: () => Promise<() => void>,
  settle: () => Promise<void>,
): Promise<void> {
  // A loaded machine can hold a replica's acknowledgement past a short bound: the store that
  // writes before and checks after waits long; the one that meets the frozen replica, briefly.
  const patient = new RedisStore({ url, keyPrefix: 'frozen:', commandTimeoutMs: 10_000 });
  const brief = new RedisStore({ url, keyPrefix: 'frozen:', commandTimeoutMs: 400 });
  try {
    await patient.set('code', 'before', { v: 1 });
    await brief.ping();
    const resume = await freeze();
    try {
      await expect(brief.consume('code', 'before')).rejects.toThrow(
        new StoreUnavailableError('Redis did not replicate a write to 1 replica(s) within 200 ms'),
      );
      await expect(brief.set('code', 'during', { v: 1 })).rejects.toThrow(StoreUnavailableError);
    } finally {
      resume();
    }
    await settle();
    expect(await patient.consume('code', 'before')).toMatchObject({ firstUse: false });
  } finally {
    await Promise.all([patient.close(), brief.close()]);
  }
}
