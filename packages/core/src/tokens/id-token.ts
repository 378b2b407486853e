import { sha512 } from '@noble/hashes/sha2.js';
import type { SigningAlgorithm } from '../config/realm.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { base64urlFromBytes } from '../crypto/base64url.js';
import { sha256Bytes } from '../crypto/digest.js';
import { signRealmJwt } from '../jwt/sign.js';
import type { TokenFamily } from '../lifecycle/token-family.js';

export const ID_TOKEN_JWT_TYPE = 'JWT';
const UNSPECIFIED_ACR = '0';

export interface IdTokenContents {
  grant: TokenFamily;
  nonce?: string;
  /** Bound through `at_hash` when the token is returned beside an access token. */
  accessToken?: string;
  /** Bound through `c_hash` when the token is returned beside a code. */
  code?: string;
  /** The user's claims to embed (see id-token-claims.ts). */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * An ID token (OIDC Core 1.0 §2) signed with the realm's current key of the client's algorithm
 * (its id_token_signed_response_alg, else the realm's signing_alg).
 */
export async function issueIdToken(
  context: RealmContext,
  contents: IdTokenContents,
): Promise<string> {
  const { realm } = context;
  const { grant } = contents;
  const iat = nowSeconds(context);
  const alg = realm.clients.get(grant.clientId)?.idTokenAlg ?? realm.config.signing_alg;
  const payload: Record<string, unknown> = {
    ...contents.claims,
    iss: realm.issuer,
    sub: grant.sub,
    aud: grant.clientId,
    exp: iat + realm.config.id_token_ttl,
    iat,
    auth_time: grant.authTime,
    azp: grant.clientId,
  };
  if (contents.nonce !== undefined) payload.nonce = contents.nonce;
  if (grant.acr !== undefined) payload.acr = grant.acr;
  // Asked for (acr_values, or the claims parameter) without the login naming a class: "0", the
  // class OIDC Core 1.0 §2 defines for an authentication that claims no assurance level.
  else if (grant.claims?.id_token.includes('acr')) payload.acr = UNSPECIFIED_ACR;
  if (grant.amr !== undefined) payload.amr = grant.amr;
  if (grant.sid !== undefined) payload.sid = grant.sid;
  if (contents.accessToken !== undefined) payload.at_hash = leftHalfHash(alg, contents.accessToken);
  if (contents.code !== undefined) payload.c_hash = leftHalfHash(alg, contents.code);
  return signRealmJwt(context, ID_TOKEN_JWT_TYPE, payload, alg);
}

/**
 * `at_hash` / `c_hash` (OIDC Core 1.0 §3.1.3.6, §3.3.2.11): the left half of the hash the signing
 * algorithm uses, base64url. EdDSA over Ed25519 pairs with SHA-512.
 */
function leftHalfHash(alg: SigningAlgorithm, value: string): string {
  const digest = alg === 'EdDSA' ? sha512(new TextEncoder().encode(value)) : sha256Bytes(value);
  return base64urlFromBytes(digest.subarray(0, digest.length / 2));
}
