import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlFromBytes } from './base64url.js';

/** SHA-256 of a string's UTF-8. */
export interface Sha256 {
  bytes(value: string): Uint8Array;
  /** Unpadded base64url. */
  base64url(value: string): string;
}

/** `node:crypto`'s one-shot `hash`, as far as it is used here. */
type OneShotHash = (
  algorithm: 'sha256',
  data: string,
  outputEncoding: 'base64url' | 'buffer',
) => unknown;

export interface Runtime {
  process?: { getBuiltinModule?: (id: string) => unknown };
}

/**
 * The runtime's own SHA-256 where it offers `node:crypto`'s one-shot `hash` through
 * `process.getBuiltinModule` (Node.js ≥ 20.16, Bun, Deno), else `@noble/hashes` in JavaScript. A
 * code exchange takes five to six digests of short values; the native one costs about 0.6 µs per
 * token digest here against 4–6 µs for the JavaScript one with its UTF-8 encoding
 * (docs/decisions.md). Looked up, not imported: the core still runs where there is no Node.js.
 */
export function runtimeSha256(runtime: Runtime, fallback: Sha256): Sha256 {
  const native = nativeSha256(runtime);
  return native !== undefined && answersKnownVector(native) ? native : fallback;
}

function nativeSha256(runtime: Runtime): Sha256 | undefined {
  const getBuiltinModule = runtime.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') return undefined;
  let crypto: { hash?: OneShotHash } | undefined;
  try {
    crypto = getBuiltinModule.call(runtime.process, 'node:crypto') as typeof crypto;
  } catch {
    return undefined;
  }
  const hash = crypto?.hash;
  if (typeof hash !== 'function') return undefined;
  return {
    bytes(value) {
      const digest = hash('sha256', value, 'buffer') as Uint8Array;
      // A plain Uint8Array over the same memory, as the JavaScript one gives, not a Buffer.
      return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
    },
    base64url: (value) => hash('sha256', value, 'base64url') as string,
  };
}

/**
 * Whether a runtime's `hash` gives SHA-256 as this module needs it (RFC 6234's vector for "abc"),
 * so that a runtime whose node:crypto only resembles Node's falls back rather than answering
 * wrong digests.
 */
function answersKnownVector(sha256: Sha256): boolean {
  try {
    return (
      sha256.base64url('abc') === ABC_DIGEST &&
      base64urlFromBytes(sha256.bytes('abc')) === ABC_DIGEST
    );
  } catch {
    return false;
  }
}

const ABC_DIGEST = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0';

const encoder = new TextEncoder();
/**
 * Where a short value's UTF-8 goes to be hashed in JavaScript: `encodeInto` a buffer kept for it
 * is several times cheaper than `encode` allocating one per digest. Wiped after each use, so it
 * keeps no secret between digests.
 */
const scratch = new Uint8Array(4096);
/** UTF-8 takes at most 3 bytes per UTF-16 code unit: a value this long always fits. */
const SCRATCH_CHARACTERS = Math.floor(scratch.length / 3);

function nobleBytes(value: string): Uint8Array {
  if (value.length > SCRATCH_CHARACTERS) return sha256(encoder.encode(value));
  const { written } = encoder.encodeInto(value, scratch);
  const digest = sha256(scratch.subarray(0, written));
  scratch.fill(0, 0, written);
  return digest;
}

/** `@noble/hashes`: SHA-256 wherever JavaScript runs. */
export const javascriptSha256: Sha256 = {
  bytes: nobleBytes,
  base64url: (value) => base64urlFromBytes(nobleBytes(value)),
};

/** The SHA-256 every digest of the core goes through. */
export const SHA256: Sha256 = runtimeSha256(globalThis as Runtime, javascriptSha256);
