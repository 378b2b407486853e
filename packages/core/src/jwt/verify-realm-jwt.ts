import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors,
  type JWK,
  type JWTPayload,
  jwtVerify,
} from 'jose';
import { SIGNING_ALGORITHMS } from '../config/realm.js';
import type { RealmContext } from '../context.js';

type KeySet = ReturnType<typeof createLocalJWKSet>;
const keySets = new WeakMap<readonly JWK[], KeySet>();

export interface VerifyRealmJwtOptions {
  typ: string;
  /** Accept an expired token (a CIBA id_token_hint may be expired); the signature still counts. */
  allowExpired?: boolean;
}

/**
 * Verifies a JWT this realm signed: signature against the realm's published keys (each key
 * pinned to its own `alg`), issuer and `typ`. Undefined for anything that does not verify.
 */
export async function verifyRealmJwt(
  context: RealmContext,
  token: string,
  options: VerifyRealmJwtOptions,
): Promise<JWTPayload | undefined> {
  const keySet = await realmKeySet(context, token);
  try {
    const { payload } = await jwtVerify(token, keySet, {
      algorithms: [...SIGNING_ALGORITHMS],
      issuer: context.realm.issuer,
      typ: options.typ,
      currentDate: new Date(context.now()),
    });
    return payload;
  } catch (error) {
    // jose only reports expiry after the signature and the other claims have been checked.
    if (options.allowExpired && error instanceof errors.JWTExpired) return error.payload;
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}

/** The realm's keys; read afresh once when the token names a kid the cached list lacks. */
async function realmKeySet(context: RealmContext, token: string): Promise<KeySet> {
  let publicKeys = await context.keys.publicKeys(context.realm);
  const kid = headerKid(token);
  if (kid !== undefined && !publicKeys.some((key) => key.kid === kid)) {
    publicKeys = await context.keys.publicKeys(context.realm, { fresh: true });
  }
  let keySet = keySets.get(publicKeys);
  if (!keySet) {
    keySet = createLocalJWKSet({ keys: [...publicKeys] });
    keySets.set(publicKeys, keySet);
  }
  return keySet;
}

function headerKid(token: string): string | undefined {
  try {
    const { kid } = decodeProtectedHeader(token);
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}
