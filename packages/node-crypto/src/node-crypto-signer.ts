import type { KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type { JwsSigner, SigningKey } from '@gatehouse-oidc/core';
import { KeyCache, signingMaterial } from '@gatehouse-oidc/core/adapter';
import { generateKeyPairJwks, type PreparedKey, prepareKey } from './algorithms.js';
import { type SignBatch, type SignReply, startSignWorker } from './sign-worker.js';

/** Who waits for a job's signature. */
interface Waiter {
  settle(signature: Uint8Array): void;
  reject(error: Error): void;
}

/** A key as the worker holds it, under an id of its own. */
interface WorkerKey {
  readonly id: string;
  readonly key: PreparedKey;
}

/** The turn's jobs (key id, input), the keys they need by id, and who waits for each. */
interface PendingBatch {
  readonly keyIds: string[];
  readonly inputs: Uint8Array[];
  readonly keys: Map<string, WorkerKey>;
  readonly waiters: Waiter[];
}

/** A batch sent to the worker and not answered yet. */
interface SentBatch {
  readonly number: number;
  readonly waiters: Waiter[];
}

/**
 * A full batch goes at once rather than at the end of the event-loop turn, so the worker signs
 * while the event loop goes on parsing the turn's other requests; with one batch per turn the two
 * took turns waiting for each other. In alternating bench runs 8 gave about 10% more throughput
 * than unbounded batches (docs/performance-history.md).
 */
const MAX_BATCH_SIZE = 8;

/** Keys kept prepared; a realm has a few, so this only bounds a churning key store. */
const MAX_KEYS = 1000;

/** Keys made and not signed with yet that are remembered; a key store uses what it makes at once. */
const MAX_MADE_KEYS = 64;

/**
 * A JWS signer on `node:crypto`: each JWK becomes a KeyObject once, and signatures are computed
 * on a worker thread. Requests that need a signature in the same event-loop turn go to the worker
 * as one message, so under load the event loop pays one thread wake-up per batch instead of one
 * per signature (the libuv-pool form of `sign` spent about 11 µs per request on that alone), and
 * the message carries the batch's inputs in one buffer; see docs/performance-history.md. Signatures are
 * checked by `nodeCryptoVerifier`. Inject it with `createProvider({ signer: nodeCryptoSigner() })`.
 */
export function nodeCryptoSigner(): JwsSigner {
  let nextKeyId = 0;
  /** Keys dropped from the caches, for the worker to drop with the next batch. */
  let dropped: string[] = [];
  const dropKey = ({ id }: WorkerKey) => dropped.push(id);
  const signingKeys = new KeyCache<WorkerKey>(MAX_KEYS, dropKey);
  /** A key with a new id; ids are never reused, so a dropped key cannot be mistaken. */
  const workerKey = (prefix: string, key: PreparedKey): WorkerKey => ({
    id: `${prefix}:${nextKeyId++}`,
    key,
  });

  /**
   * The KeyObjects of the keys this signer made, by their private JWK's `d`, until their first
   * signature: importing the JWK back costs as much as making the key (a realm's first token).
   */
  const madeKeys = new Map<string, KeyObject>();
  const takeMadeKey = (key: SigningKey): KeyObject | undefined => {
    const d = key.privateJwk.d;
    const made = d === undefined ? undefined : madeKeys.get(d);
    if (made !== undefined) madeKeys.delete(d as string);
    return made;
  };

  let worker: Worker | undefined;
  /** The ids of the keys the current worker holds. */
  let keysSent = new Set<string>();
  let pending: PendingBatch | undefined;
  let batchNumber = 0;
  /** Batches sent and not answered yet, oldest first: the worker answers in order. */
  const inFlight: SentBatch[] = [];

  function ensureWorker(): Worker {
    if (worker) return worker;
    const started = startSignWorker();
    // A dead or confused worker fails what it still owed; the next batch starts a fresh one.
    const failAll = (error: Error) => {
      if (worker !== started) return;
      worker = undefined;
      for (const { waiters } of inFlight.splice(0))
        for (const waiter of waiters) waiter.reject(error);
      void started.terminate();
    };
    started.on('message', (reply: SignReply | null) => {
      const sent = inFlight[0];
      // Results are matched to their jobs by position: any other answer than the next batch's,
      // whole, means that matching cannot be trusted any more.
      if (
        sent === undefined ||
        reply?.batch !== sent.number ||
        !Array.isArray(reply.results) ||
        reply.results.length !== sent.waiters.length
      ) {
        failAll(new Error('the signing worker answered out of order'));
        return;
      }
      if (!signaturesFit(reply)) {
        failAll(new Error('the signing worker sent an unreadable answer'));
        return;
      }
      inFlight.shift();
      let offset = 0;
      reply.results.forEach((result, index) => {
        const waiter = sent.waiters[index];
        if (typeof result === 'string') {
          waiter?.reject(new Error(`signing failed: ${result}`));
        } else {
          waiter?.settle(reply.signatures.subarray(offset, offset + result));
          offset += result;
        }
      });
      // An idle signer must not keep the process alive.
      if (inFlight.length === 0) started.unref();
    });
    started.on('messageerror', () =>
      failAll(new Error('the signing worker sent an unreadable answer')),
    );
    started.on('error', failAll);
    started.on('exit', () => failAll(new Error('the signing worker exited')));
    worker = started;
    keysSent = new Set();
    return started;
  }

  /** Sends the pending batch; if it cannot leave, its jobs fail rather than wait forever. */
  function flush(): void {
    if (!pending) return;
    const { keyIds, inputs, keys, waiters } = pending;
    pending = undefined;
    try {
      const target = ensureWorker();
      // The worker first forgets the dropped keys, then learns every key this batch needs that
      // it does not hold: new keys, keys dropped and used again, all of them after a restart.
      const forgotten = dropped;
      const learnt = [...keys.values()].filter(
        ({ id }) => !keysSent.has(id) || forgotten.includes(id),
      );
      const batch: SignBatch = {
        number: batchNumber + 1,
        dropped: forgotten,
        keys: learnt.map(({ id, key }) => [id, key]),
        keyIds,
        ...joinInputs(inputs),
      };
      target.postMessage(batch);
      batchNumber = batch.number;
      dropped = [];
      for (const id of forgotten) keysSent.delete(id);
      for (const { id } of learnt) keysSent.add(id);
      inFlight.push({ number: batch.number, waiters });
      target.ref();
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const waiter of waiters) waiter.reject(failure);
    }
  }

  /** Queues a job for the worker: a batch goes at the end of the turn, or at once when full. */
  function enqueue(key: WorkerKey, input: Uint8Array, waiter: Waiter): void {
    if (!pending) {
      pending = { keyIds: [], inputs: [], keys: new Map(), waiters: [] };
      setImmediate(flush);
    }
    pending.keyIds.push(key.id);
    pending.inputs.push(input);
    // The key travels with its job, so a key dropped from the cache meanwhile still gets there.
    pending.keys.set(key.id, key);
    pending.waiters.push(waiter);
    if (pending.keyIds.length === MAX_BATCH_SIZE) flush();
  }

  return {
    async generateKeyPair(alg) {
      const { jwks, privateKey } = await generateKeyPairJwks(alg);
      const d = jwks.privateJwk.d;
      if (d !== undefined) {
        if (madeKeys.size >= MAX_MADE_KEYS) madeKeys.delete(madeKeys.keys().next().value as string);
        madeKeys.set(d, privateKey);
      }
      return jwks;
    },
    sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      return new Promise((resolve, reject) => {
        const prepared = signingKeys.get(
          key,
          () => signingMaterial(key),
          () => workerKey('sign', prepareKey(key, takeMadeKey(key))),
        );
        enqueue(prepared, signingInput, { settle: resolve, reject });
      });
    },
  };
}

/** The batch's inputs end to end in one buffer, and where each ends. */
function joinInputs(inputs: readonly Uint8Array[]): Pick<SignBatch, 'lengths' | 'inputs'> {
  const lengths = inputs.map((input) => input.length);
  const joined = new Uint8Array(lengths.reduce((sum, length) => sum + length, 0));
  let offset = 0;
  for (const input of inputs) {
    joined.set(input, offset);
    offset += input.length;
  }
  return { lengths, inputs: joined };
}

/** The reply's signature lengths are whole numbers that take up exactly its buffer. */
function signaturesFit({ results, signatures }: SignReply): boolean {
  if (!(signatures instanceof Uint8Array)) return false;
  let total = 0;
  for (const result of results) {
    if (typeof result === 'string') continue;
    if (!Number.isSafeInteger(result) || result <= 0) return false;
    total += result;
  }
  return total === signatures.length;
}
