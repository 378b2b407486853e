const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));
/** Input bytes encoded per pass of `base64urlFromBytes`: a multiple of 3 that fills its buffer. */
const CHUNK_BYTES = 3 * 2048;
/**
 * Where `base64urlFromBytes` writes the characters before they become a string; wiped after each
 * use, since it encodes secrets (codes, refresh tokens).
 */
const scratch = new Uint8Array((CHUNK_BYTES / 3) * 4);
const ascii = new TextDecoder();

/**
 * Unpadded base64url (RFC 4648 §5) of `bytes`, from a lookup table. For the short inputs of every
 * token request (a signature, a `jti`) this is several times faster than jose's encoder, which
 * goes through a binary string, `btoa` and three regex replacements, and it makes no garbage but
 * the string (docs/performance-history.md).
 */
export function base64urlFromBytes(bytes: Uint8Array): string {
  let out = '';
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    const written = base64urlInto(
      bytes,
      start,
      Math.min(start + CHUNK_BYTES, bytes.length),
      scratch,
      0,
    );
    out += ascii.decode(scratch.subarray(0, written));
    scratch.fill(0, 0, written);
  }
  return out;
}

/** The length of the unpadded base64url of `byteLength` bytes. */
export const base64urlLength = (byteLength: number): number => Math.ceil((byteLength * 4) / 3);

/**
 * Writes the unpadded base64url of `bytes[start, end)` as ASCII into `target` from `offset`, and
 * returns the offset after it.
 */
export function base64urlInto(
  bytes: Uint8Array,
  start: number,
  end: number,
  target: Uint8Array,
  offset: number,
): number {
  let i = start;
  let at = offset;
  for (; i + 2 < end; i += 3) {
    const triple = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    target[at++] = code(triple >> 18);
    target[at++] = code(triple >> 12);
    target[at++] = code(triple >> 6);
    target[at++] = code(triple);
  }
  const rest = end - i;
  if (rest > 0) {
    const triple = ((bytes[i] ?? 0) << 16) | (rest === 2 ? (bytes[i + 1] ?? 0) << 8 : 0);
    target[at++] = code(triple >> 18);
    target[at++] = code(triple >> 12);
    if (rest === 2) target[at++] = code(triple >> 6);
  }
  return at;
}

const code = (sextet: number): number => CODES[sextet & 63] ?? 0;
