import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { BODY_TOO_LARGE } from '@gatehouse-oidc/core/adapter';
import { describe, expect, it } from 'vitest';
import { readBody } from './read-body.js';

const KIB = 1024;

/** A stream of `count` chunks of 1 KiB that counts how many were read from it. */
function countedStream(count: number) {
  let read = 0;
  const stream = new Readable({
    // One chunk per turn of the event loop, as from a socket.
    read() {
      setImmediate(() => {
        if (read === count) return void this.push(null);
        read += 1;
        this.push(Buffer.alloc(KIB, 'a'));
      });
    },
  }) as Readable & Parameters<typeof readBody>[0];
  return { stream, chunksRead: () => read };
}

describe('readBody', () => {
  it('returns the whole body when it is within the limit', async () => {
    const { stream } = countedStream(4);
    const body = await readBody(stream, 4 * KIB);
    expect(body).toEqual(Buffer.alloc(4 * KIB, 'a'));
  });

  it('stops buffering past the limit and drains the rest without keeping it', async () => {
    const { stream, chunksRead } = countedStream(1000);
    expect(await readBody(stream, 4 * KIB)).toBe(BODY_TOO_LARGE);
    // Answered after the limit plus the stream's read-ahead, long before the end of the upload.
    expect(chunksRead()).toBeLessThan(50);
    expect(stream.listenerCount('data')).toBe(0);
    await finished(stream);
    expect(chunksRead()).toBe(1000);
  });

  it('rejects when the stream fails', async () => {
    const stream = new Readable({ read() {} }) as Parameters<typeof readBody>[0];
    const reading = readBody(stream, KIB);
    stream.destroy(new Error('aborted'));
    await expect(reading).rejects.toThrow('aborted');
  });
});
