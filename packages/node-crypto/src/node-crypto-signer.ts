import type { Worker } from 'node:worker_threads';
import type { JwsSigner, PublicJwk, SigningKey } from '@gatehouse-oidc/core';
import { KeyCache } from '@gatehouse-oidc/core/adapter';
import { type PreparedKey, prepareKey, preparePublicKey } from './algorithms.js';
import { type SignBatch, type SignReply, startSignWorker } from './sign-worker.js';

/** How a job's result settles its caller: a signature for `sign`, a boolean for `verify`. */
interface Waiter {
  settle(result: unknown): void;
  reject(error: Error): void;
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
 * than unbounded batches (docs/performance.md).
 */
const MAX_BATCH_SIZE = 8;

/** Keys of each kind kept prepared; a realm has a few, so this only bounds a churning key store. */
const MAX_KEYS = 1000;

/**
 * A JWS signer on `node:crypto`: each JWK becomes a KeyObject once, and signatures are computed
 * on a worker thread. Requests that need a signature in the same event-loop turn go to the worker
 * as one message, so under load the event loop pays one thread wake-up per batch instead of one
 * per signature (the libuv-pool form of `sign` spent about 11 µs per request on that alone); see
 * docs/performance.md. The realm's own tokens presented back (ID token hints, JWT access tokens)
 * are verified on the same thread, in the same batches. Inject it with
 * `createProvider({ signer: nodeCryptoSigner() })`.
 */
export function nodeCryptoSigner(): JwsSigner {
  /** The worker's keys by id; ids are never reused, so a dropped key cannot be mistaken. */
  const prepared = new Map<string, PreparedKey>();
  let nextKeyId = 0;
  /** Keys dropped from the caches, for the worker to drop with the next batch. */
  let dropped: string[] = [];
  const dropKey = (id: string) => {
    prepared.delete(id);
    dropped.push(id);
  };
  const signingKeyIds = new KeyCache<string>(MAX_KEYS, dropKey);
  const verificationKeyIds = new KeyCache<string>(MAX_KEYS, dropKey);

  let worker: Worker | undefined;
  let keysSent = new Set<string>();
  let pending: { batch: SignBatch; waiters: Waiter[] } | undefined;
  let batchNumber = 0;
  /** Batches sent and not answered yet, oldest first: the worker answers in order. */
  const inFlight: SentBatch[] = [];

  /** A new id for the key `make` prepares. */
  function keyId(prefix: string, make: () => PreparedKey): string {
    const id = `${prefix}:${nextKeyId++}`;
    prepared.set(id, make());
    return id;
  }

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
    started.on('message', ({ batch, results }: SignReply) => {
      const sent = inFlight[0];
      // Results are matched to their jobs by position: any other answer than the next batch's,
      // whole, means that matching cannot be trusted any more.
      if (sent?.number !== batch || results?.length !== sent.waiters.length) {
        failAll(new Error('the signing worker answered out of order'));
        return;
      }
      inFlight.shift();
      results.forEach((result, index) => {
        sent.waiters[index]?.settle(result);
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

  function flush(): void {
    if (!pending) return;
    const { batch, waiters } = pending;
    pending = undefined;
    const target = ensureWorker();
    // Send the worker every key it has not seen: new keys, or all of them after a restart.
    for (const [id] of batch.jobs) {
      const key = prepared.get(id);
      if (key && !keysSent.has(id)) {
        keysSent.add(id);
        batch.keys.push([id, key]);
      }
    }
    for (const id of dropped) keysSent.delete(id);
    batch.dropped = dropped;
    dropped = [];
    batch.number = ++batchNumber;
    target.ref();
    inFlight.push({ number: batch.number, waiters });
    target.postMessage(batch);
  }

  /** Queues a job for the worker: a batch goes at the end of the turn, or at once when full. */
  function enqueue(job: SignBatch['jobs'][number], waiter: Waiter): void {
    if (!pending) {
      pending = { batch: { number: 0, keys: [], jobs: [], dropped: [] }, waiters: [] };
      setImmediate(flush);
    }
    pending.batch.jobs.push(job);
    pending.waiters.push(waiter);
    if (pending.batch.jobs.length === MAX_BATCH_SIZE) flush();
  }

  return {
    sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      return new Promise((resolve, reject) => {
        const id = signingKeyIds.get(key, key.publicJwk, () =>
          keyId('sign', () => prepareKey(key)),
        );
        enqueue([id, signingInput], {
          settle: (result) =>
            result instanceof Uint8Array
              ? resolve(result)
              : reject(new Error(`signing failed: ${String(result)}`)),
          reject,
        });
      });
    },

    verify(
      publicKey: PublicJwk,
      signingInput: Uint8Array<ArrayBuffer>,
      signature: Uint8Array<ArrayBuffer>,
    ): Promise<boolean> {
      return new Promise((resolve, reject) => {
        let id: string;
        try {
          id = verificationKeyIds.get(publicKey, publicKey, () =>
            keyId('verify', () => preparePublicKey(publicKey)),
          );
        } catch {
          // A key node:crypto cannot import verifies nothing.
          resolve(false);
          return;
        }
        // Only a true from the worker verifies; an error (a malformed signature) does not.
        enqueue([id, signingInput, signature], {
          settle: (result) => resolve(result === true),
          reject,
        });
      });
    },
  };
}
