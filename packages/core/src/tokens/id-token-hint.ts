import type { RealmContext } from '../context.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import { ID_TOKEN_JWT_TYPE } from './id-token.js';

/** Who an id_token_hint names, and to which clients the token was issued. */
export interface IdTokenHint {
  sub: string;
  audience: string[];
}

/**
 * An ID token of this realm presented back as a hint (authorization, CIBA, logout): its signature
 * checked against the realm's published keys, each pinned to its own algorithm (so `alg: none`, a
 * key of another realm or of nobody fail), its issuer and `typ`. Its expiry is not: a hint names
 * a user, it grants nothing, and OpenID Connect lets an expired ID token serve as one. Undefined
 * for anything that is not such a token.
 */
export async function verifyIdTokenHint(
  context: RealmContext,
  hint: string,
): Promise<IdTokenHint | undefined> {
  const claims = await verifyRealmJwt(context, hint, {
    typ: ID_TOKEN_JWT_TYPE,
    allowExpired: true,
  });
  if (!claims || typeof claims.sub !== 'string') return undefined;
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.every((each) => typeof each === 'string')) return undefined;
  return { sub: claims.sub, audience };
}
