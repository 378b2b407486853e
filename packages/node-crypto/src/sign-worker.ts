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

/**
 * A KeyObject the thread forgot keeps its OpenSSL key (about 5 KiB, which V8 does not see) until
 * a full collection of the thread's heap, and the thread allocates so little that one seldom
 * comes: a server touching realm after realm grew by that much per key. After this many keys
 * dropped the thread collects; a full collection of its small heap takes about a millisecond.
 */
const COLLECT_AFTER_DROPPED_KEYS = 256;

// An ES module given to the worker as a data: URL, so it runs the same from sources (tests) and
// from dist, and whatever module mode the host process runs in: a data: URL of type
// text/javascript is always a module. Source evaluated with `eval: true` was not: it takes the
// host's `--input-type`, and under `--input-type=module` CommonJS's `require` did not exist.
// V8's gc() is taken into a context of its own and the flag set back at once: no other context
// of the process gets it.
const SOURCE = `
import { parentPort } from 'node:worker_threads';
import { sign } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');
setFlagsFromString('--no-expose-gc');
const keys = new Map();
let droppedSinceCollection = 0;
parentPort.on('message', ({ number, dropped, keys: added, jobs }) => {
  for (const id of dropped) keys.delete(id);
  droppedSinceCollection += dropped.length;
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
  // After the answer: the batch's callers do not wait for the collection.
  if (droppedSinceCollection >= ${COLLECT_AFTER_DROPPED_KEYS}) {
    droppedSinceCollection = 0;
    collectGarbage();
  }
});
`;

const SOURCE_URL = new URL(`data:text/javascript,${encodeURIComponent(SOURCE)}`);

/**
 * Starts the signing thread. It keeps its own KeyObjects by id and answers each batch in turn.
 * It takes none of the host's node flags: a thread inherits `--import` preloads, which it does not
 * need and may not be able to load (`node --import tsx --import ./instrument.ts` failed on the
 * `.ts` file there, and every token with it).
 */
export function startSignWorker(): Worker {
  return new Worker(SOURCE_URL, { execArgv: [] });
}
