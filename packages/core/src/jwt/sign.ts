import type { SigningAlgorithm } from '../config/signing-algorithms.js';
import type { RealmContext } from '../context.js';
import { base64urlFromBytes, base64urlInto, base64urlLength } from '../crypto/base64url.js';
import type { SigningKey } from '../keys/signing-key.js';

const encoder = new TextEncoder();
const ascii = new TextDecoder();
/** Encoded protected headers and their dot, by key and `typ`: they change only when the key does. */
const encodedHeaders = new WeakMap<SigningKey, Map<string, Uint8Array>>();
/**
 * Where a payload's UTF-8 goes before it is encoded: large enough for every token's (a UTF-16
 * unit takes at most 3 bytes); a larger payload gets a buffer of its own. Wiped after each use.
 */
const utf8Scratch = new Uint8Array(16 * 1024);

/** Signs `payload` as a compact JWS with the realm's current key of `alg` (default: its `signing_alg`). */
export async function signRealmJwt(
  context: RealmContext,
  typ: string,
  payload: Record<string, unknown>,
  alg: SigningAlgorithm = context.realm.config.signing_alg,
): Promise<string> {
  const key = await context.keys.currentKey(context.realm, alg);
  // A KeyStore written before keys had several algorithms would answer with its only key.
  if (key.alg !== alg) throw new Error(`the KeyStore returned a ${key.alg} key for ${alg}`);
  const signingInput = withBase64urlJson(encodedHeader(key, typ), JSON.stringify(payload));
  const encoded = ascii.decode(signingInput);
  const signature = await context.signer.sign(key, signingInput);
  return `${encoded}.${base64urlFromBytes(signature)}`;
}

function encodedHeader(key: SigningKey, typ: string): Uint8Array {
  let byTyp = encodedHeaders.get(key);
  if (!byTyp) {
    byTyp = new Map();
    encodedHeaders.set(key, byTyp);
  }
  let header = byTyp.get(typ);
  if (header === undefined) {
    const json = JSON.stringify({ alg: key.alg, typ, kid: key.kid });
    header = encoder.encode(`${base64urlFromBytes(encoder.encode(json))}.`);
    byTyp.set(typ, header);
  }
  return header;
}

/**
 * `prefix`, then the base64url of the UTF-8 of `json`, as ASCII bytes: written straight into the
 * bytes to sign, with none of the intermediate strings of `btoa` and its character replacements
 * (docs/performance-history.md).
 */
function withBase64urlJson(prefix: Uint8Array, json: string): Uint8Array<ArrayBuffer> {
  const utf8 =
    json.length * 3 <= utf8Scratch.length ? utf8Scratch : new Uint8Array(json.length * 3);
  const { written } = encoder.encodeInto(json, utf8);
  const bytes = new Uint8Array(prefix.length + base64urlLength(written));
  bytes.set(prefix);
  base64urlInto(utf8, 0, written, bytes, prefix.length);
  utf8.fill(0, 0, written);
  return bytes;
}
