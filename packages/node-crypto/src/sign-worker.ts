import { Worker } from 'node:worker_threads';
import type { PreparedKey } from './algorithms.js';

/**
 * One batch, numbered: the keys the worker may forget, the keys it has not seen yet, then the
 * jobs in order, each a signing input to sign with a key.
 */
export interface SignBatch {
  number: number;
  dropped: string[];
  keys: Array<[id: string, key: PreparedKey]>;
  jobs: Array<[id: string, input: Uint8Array]>;
}

/**
 * The answer to batch `batch`: per job, in order, the signature, or the error message when the
 * job failed.
 */
export interface SignReply {
  batch: number;
  results: Array<Uint8Array | string>;
}

// Plain CommonJS evaluated by the worker, so it runs the same from sources (tests) and from dist.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', ({ number, dropped, keys: added, jobs }) => {
  for (const id of dropped) keys.delete(id);
  for (const [id, key] of added) keys.set(id, key);
  const results = jobs.map(([id, input]) => {
    try {
      const { digest, key } = keys.get(id);
      return sign(digest, input, key);
    } catch (error) {
      return String(error && error.message);
    }
  });
  parentPort.postMessage({ batch: number, results });
});
`;

/** Starts the signing thread. It keeps its own KeyObjects by id and answers each batch in turn. */
export function startSignWorker(): Worker {
  return new Worker(SOURCE, { eval: true });
}
