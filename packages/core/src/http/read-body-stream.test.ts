import { describe, expect, it } from 'vitest';
import { BODY_TOO_LARGE, readBodyStream } from './read-body-stream.js';

const KIB = 1024;

/** A stream of `count` chunks of 1 KiB that counts how many were pulled and whether it was cancelled. */
function countedStream(count: number) {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === count) return controller.close();
        pulled += 1;
        controller.enqueue(new Uint8Array(KIB).fill(0x61));
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

describe('readBodyStream', () => {
  it('returns the whole body when it is within the limit', async () => {
    const { stream } = countedStream(4);
    expect(await readBodyStream(stream, 4 * KIB)).toEqual(new Uint8Array(4 * KIB).fill(0x61));
  });

  it('stops reading one chunk past the limit and cancels the stream', async () => {
    const { stream, pulled, cancelled } = countedStream(1000);
    expect(await readBodyStream(stream, 4 * KIB)).toBe(BODY_TOO_LARGE);
    expect(pulled()).toBe(5);
    expect(cancelled()).toBe(true);
  });
});
