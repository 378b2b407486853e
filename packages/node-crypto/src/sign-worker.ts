import { Worker } from 'node:worker_threads';
import type { PreparedKey } from './algorithms.js';

/** One batch: keys the worker has not seen yet, then the signing inputs in order. */
export interface SignBatch {
  keys: Array<[kid: string, key: PreparedKey]>;
  jobs: Array<[kid: string, input: Uint8Array]>;
}

/** Per job, in order: the signature, or the error message when that signature failed. */
export type SignResults = Array<Uint8Array | string>;

// Plain CommonJS evaluated by the worker, so it runs the same from sources (tests) and from dist.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', ({ keys: added, jobs }) => {
  for (const [kid, key] of added) keys.set(kid, key);
  parentPort.postMessage(jobs.map(([kid, input]) => {
    try {
      const { digest, key } = keys.get(kid);
      return sign(digest, input, key);
    } catch (error) {
      return String(error && error.message);
    }
  }));
});
`;

/** Starts the signing thread. It keeps its own KeyObjects by kid and answers batches in order. */
export function startSignWorker(): Worker {
  return new Worker(SOURCE, { eval: true });
}
