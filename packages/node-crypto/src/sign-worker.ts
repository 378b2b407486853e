import { Worker } from 'node:worker_threads';
import type { PreparedKey } from './algorithms.js';

/**
 * One batch, numbered: the keys the worker may forget, the keys it has not seen yet, then the
 * jobs in order, each a signing input to sign with a key. The inputs travel end to end in one
 * buffer, `lengths` saying where each ends: a message of one buffer costs both threads about half
 * of one carrying a buffer per job (docs/performance-history.md).
 */
export interface SignBatch {
  number: number;
  dropped: string[];
  keys: Array<[id: string, key: PreparedKey]>;
  /** Per job, the id of its key. */
  keyIds: string[];
  /** Per job, the length of its input in `inputs`. */
  lengths: number[];
  inputs: Uint8Array;
}

/**
 * The answer to batch `batch`: per job, in order, the length of its signature in `signatures`
 * (where they follow each other as the jobs do), or the error message when the job failed.
 */
export interface SignReply {
  batch: number;
  results: Array<number | string>;
  signatures: Uint8Array;
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
parentPort.on('message', ({ number, dropped, keys: added, keyIds, lengths, inputs }) => {
  for (const id of dropped) keys.delete(id);
  droppedSinceCollection += dropped.length;
  for (const [id, key] of added) keys.set(id, key);
  const signatures = [];
  let offset = 0;
  const results = keyIds.map((id, job) => {
    const input = inputs.subarray(offset, offset + lengths[job]);
    offset += lengths[job];
    try {
      const { digest, key } = keys.get(id);
      const signature = sign(digest, input, key);
      signatures.push(signature);
      return signature.length;
    } catch (error) {
      return String(error && error.message);
    }
  });
  // An array of its own, not Buffer.concat's slice of the shared pool: a message carries the whole
  // buffer under a view.
  const joined = new Uint8Array(signatures.reduce((sum, signature) => sum + signature.length, 0));
  offset = 0;
  for (const signature of signatures) {
    joined.set(signature, offset);
    offset += signature.length;
  }
  parentPort.postMessage({ batch: number, results, signatures: joined });
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
