import { base64url } from 'jose';
import type { RealmContext } from '../context.js';

const encoder = new TextEncoder();

/** Signs `payload` as a compact JWS with the realm's current key. */
export async function signRealmJwt(
  context: RealmContext,
  typ: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const key = await context.keys.currentKey(context.realm);
  const header = base64url.encode(JSON.stringify({ alg: key.alg, typ, kid: key.kid }));
  const body = base64url.encode(JSON.stringify(payload));
  const signingInput = `${header}.${body}`;
  const signature = await context.signer.sign(key, encoder.encode(signingInput));
  return `${signingInput}.${base64url.encode(signature)}`;
}
