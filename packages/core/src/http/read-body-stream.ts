/** What a body reader returns instead of the body once the body passed the limit. */
export const BODY_TOO_LARGE: unique symbol = Symbol('body too large');

/**
 * Reads a Web-standard body stream, keeping at most `limit` bytes; past it, reading stops and the
 * stream is cancelled.
 */
export async function readBodyStream(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | typeof BODY_TOO_LARGE> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return BODY_TOO_LARGE;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}
