import type { Worker } from 'node:worker_threads';
import type { JwsSigner, SigningKey } from '@gatehouse-oidc/core';
import { type PreparedKey, prepareKey } from './algorithms.js';
import { type SignBatch, type SignResults, startSignWorker } from './sign-worker.js';

interface Waiter {
  resolve(signature: Uint8Array): void;
  reject(error: Error): void;
}

/**
 * A JWS signer on `node:crypto`: each private JWK becomes a KeyObject once per kid, and signatures
 * are computed on a worker thread. Requests that need a signature in the same event-loop turn go
 * to the worker as one message, so under load the event loop pays one thread wake-up per batch
 * instead of one per signature (the libuv-pool form of `sign` spent about 11 µs per request on
 * that alone); see docs/performance.md. Inject it with `createProvider({ signer: nodeCryptoSigner() })`.
 */
/**
 * A full batch goes at once rather than at the end of the event-loop turn, so the worker signs
 * while the event loop goes on parsing the turn's other requests; with one batch per turn the two
 * took turns waiting for each other. In alternating bench runs 8 gave about 10% more throughput
 * than unbounded batches (docs/performance.md).
 */
const MAX_BATCH_SIZE = 8;

export function nodeCryptoSigner(): JwsSigner {
  const prepared = new Map<string, PreparedKey>();
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
    // Send the worker every key it has not seen: new kids, or all of them after a restart.
    for (const [kid] of batch.jobs) {
      const key = prepared.get(kid);
      if (key && !keysSent.has(kid)) {
        keysSent.add(kid);
        batch.keys.push([kid, key]);
      }
    }
    target.ref();
    inFlight.push(waiters);
    target.postMessage(batch);
  }

  return {
    sign(key: SigningKey, signingInput: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
      try {
        if (!prepared.has(key.kid)) prepared.set(key.kid, prepareKey(key));
      } catch (error) {
        return Promise.reject(error);
      }
      if (!pending) {
        pending = { batch: { keys: [], jobs: [] }, waiters: [] };
        setImmediate(flush);
      }
      const { batch, waiters } = pending;
      batch.jobs.push([key.kid, signingInput]);
      const signature = new Promise<Uint8Array>((resolve, reject) =>
        waiters.push({ resolve, reject }),
      );
      if (batch.jobs.length === MAX_BATCH_SIZE) flush();
      return signature;
    },
  };
}
