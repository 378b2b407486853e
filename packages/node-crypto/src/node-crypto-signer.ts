import type { Worker } from 'node:worker_threads';
import type { JwsSigner, PublicJwk, SigningKey } from '@gatehouse-oidc/core';
import { type PreparedKey, prepareKey, preparePublicKey } from './algorithms.js';
import { type SignBatch, type SignResults, startSignWorker } from './sign-worker.js';

interface Waiter {
  resolve(result: Uint8Array | boolean): void;
  reject(error: Error): void;
}

/**
 * A JWS signer on `node:crypto`: each private JWK becomes a KeyObject once per kid, and signatures
 * are computed on a worker thread. Requests that need a signature in the same event-loop turn go
 * to the worker as one message, so under load the event loop pays one thread wake-up per batch
 * instead of one per signature (the libuv-pool form of `sign` spent about 11 µs per request on
 * that alone); see docs/performance.md. The realm's own tokens presented back (ID token hints,
 * JWT access tokens) are verified on the same thread, in the same batches. Inject it with
 * `createProvider({ signer: nodeCryptoSigner() })`.
 */
/**
 * A full batch goes at once rather than at the end of the event-loop turn, so the worker signs
 * while the event loop goes on parsing the turn's other requests; with one batch per turn the two
 * took turns waiting for each other. In alternating bench runs 8 gave about 10% more throughput
 * than unbounded batches (docs/performance.md).
 */
const MAX_BATCH_SIZE = 8;

export function nodeCryptoSigner(): JwsSigner {
  /** Private keys by `sign:` and their kid; published keys by `verify:` and a number. */
  const prepared = new Map<string, PreparedKey>();
  /**
   * A published key's id by its whole JWK, not its kid (two realms' key stores may reuse a kid),
   * and by the JWK object the key store handed out, to skip serialising it on every call.
   */
  const verifyIds = new Map<string, string>();
  const verifyIdsByObject = new WeakMap<PublicJwk, string>();
  let worker: Worker | undefined;
  let keysSent = new Set<string>();
  let pending: { batch: SignBatch; waiters: Waiter[] } | undefined;
  /** Waiters of the batches sent and not answered yet, oldest first: the worker answers in order. */
  const inFlight: Waiter[][] = [];

  function ensureWorker(): Worker {
    if (worker) return worker;
    const started = startSignWorker();
    started.on('message', (results: SignResults) => {
      const waiters = inFlight.shift() ?? [];
      results.forEach((result, index) => {
        if (typeof result === 'string')
          waiters[index]?.reject(new Error(`signing failed: ${result}`));
        else waiters[index]?.resolve(result);
      });
      // An idle signer must not keep the process alive.
      if (inFlight.length === 0) started.unref();
    });
    // A dead worker fails what it still owed; the next batch starts a fresh one.
    const failAll = (error: Error) => {
      if (worker !== started) return;
      worker = undefined;
      for (const waiters of inFlight.splice(0)) for (const waiter of waiters) waiter.reject(error);
    };
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
    target.ref();
    inFlight.push(waiters);
    target.postMessage(batch);
  }

  /** Queues a job for the worker: a batch goes at the end of the turn, or at once when full. */
  function enqueue(job: SignBatch['jobs'][number]): Promise<Uint8Array | boolean> {
    if (!pending) {
      pending = { batch: { keys: [], jobs: [] }, waiters: [] };
      setImmediate(flush);
    }
    const { batch, waiters } = pending;
    batch.jobs.push(job);
    const result = new Promise<Uint8Array | boolean>((resolve, reject) =>
      waiters.push({ resolve, reject }),
    );
    if (batch.jobs.length === MAX_BATCH_SIZE) flush();
    return result;
  }

  return {
    sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      const id = `sign:${key.kid}`;
      try {
        if (!prepared.has(id)) prepared.set(id, prepareKey(key));
      } catch (error) {
        return Promise.reject(error);
      }
      return enqueue([id, signingInput]) as Promise<Uint8Array>;
    },

    async verify(
      publicKey: PublicJwk,
      signingInput: Uint8Array<ArrayBuffer>,
      signature: Uint8Array<ArrayBuffer>,
    ): Promise<boolean> {
      let id = verifyIdsByObject.get(publicKey);
      if (id === undefined) {
        const material = JSON.stringify(publicKey);
        id = verifyIds.get(material);
        if (id === undefined) {
          id = `verify:${verifyIds.size}`;
          prepared.set(id, preparePublicKey(publicKey));
          verifyIds.set(material, id);
        }
        verifyIdsByObject.set(publicKey, id);
      }
      return (await enqueue([id, signingInput, signature])) === true;
    },
  };
}
