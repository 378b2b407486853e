import { base64url } from 'jose';
import type { SigningAlgorithm } from '../config/signing-algorithms.js';
import type { RealmContext } from '../context.js';
import { base64urlFromBytes } from '../crypto/base64url.js';
import type { SigningKey } from '../keys/signing-key.js';

const encoder = new TextEncoder();
/** Encoded protected headers by key and `typ`: they change only when the key does. */
const encodedHeaders = new WeakMap<SigningKey, Map<string, string>>();

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
  const header = encodedHeader(key, typ);
  const signingInput = `${header}.${base64urlJson(JSON.stringify(payload))}`;
  const signature = await context.signer.sign(key, encoder.encode(signingInput));
  return `${signingInput}.${base64urlFromBytes(signature)}`;
}

function encodedHeader(key: SigningKey, typ: string): string {
  let byTyp = encodedHeaders.get(key);
  if (!byTyp) {
    byTyp = new Map();
    encodedHeaders.set(key, byTyp);
  }
  let header = byTyp.get(typ);
  if (header === undefined) {
    header = base64urlJson(JSON.stringify({ alg: key.alg, typ, kid: key.kid }));
    byTyp.set(typ, header);
  }
  return header;
}

const NON_ASCII = /[\u0080-\uffff]/;
const PADDING = 61; // '='

/**
 * base64url of the UTF-8 of `json`. Plain ASCII, the usual case, goes straight through `btoa`,
 * several times faster than encoding to bytes first; anything else takes jose's byte path.
 */
function base64urlJson(json: string): string {
  if (NON_ASCII.test(json)) return base64url.encode(json);
  const base64 = btoa(json);
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === PADDING) end--;
  return base64.slice(0, end).replaceAll('+', '-').replaceAll('/', '_');
}
