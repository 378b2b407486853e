import type { IncomingMessage } from 'node:http';
import { BODY_TOO_LARGE } from '@gatehouse-oidc/core/adapter';

/**
 * Reads the request body, keeping at most `limit` bytes in memory. Past the limit it stops
 * buffering and lets the rest of the upload drain, so the 413 still reaches the client.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Uint8Array | typeof BODY_TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.resume();
        resolve(BODY_TOO_LARGE);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
