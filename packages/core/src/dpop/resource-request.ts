import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { bearerToken } from '../http/bearer.js';
import type { GatehouseRequest } from '../http/types.js';
import type { AccessTokenRecord } from '../tokens/access-token.js';
import { dpopError } from './challenge.js';
import { proofHeader } from './proof-header.js';
import { realmProofRules, verifyProof } from './verify-proof.js';

/** An access token as a resource request presents it, and under which scheme. */
export interface PresentedAccessToken {
  readonly token: string;
  readonly scheme: 'Bearer' | 'DPoP';
}

/** RFC 9449 §7.1: `DPoP` (any case), one or more spaces, then a b64token. */
const DPOP_CREDENTIALS = /^dpop +([A-Za-z0-9\-._~+/]+=*)$/i;
const DPOP_SCHEME = /^dpop(?: |$)/i;

/**
 * The access token of the `Authorization` header, `DPoP` or `Bearer`, or undefined when the
 * request carries none. A malformed header of either scheme is an `invalid_request`.
 */
export function presentedAccessToken(
  request: GatehouseRequest,
  context: RealmContext,
): PresentedAccessToken | undefined {
  const header = request.headers.authorization;
  if (header !== undefined && DPOP_SCHEME.test(header)) {
    const token = DPOP_CREDENTIALS.exec(header)?.[1];
    if (token === undefined) {
      throw dpopError(context.realm, 'invalid_request', 'the Authorization header is not a DPoP');
    }
    return { token, scheme: 'DPoP' };
  }
  const token = bearerToken(request, context.realm.issuer);
  return token === undefined ? undefined : { token, scheme: 'Bearer' };
}

/**
 * RFC 9449 §7: a bound token (`cnf.jkt`) is accepted only under the `DPoP` scheme with a proof for
 * this request and this token (`ath`) signed by the key it is bound to; a bound token presented as
 * Bearer is refused, as is an unbound one presented as DPoP. Errors carry the DPoP challenge.
 */
export async function checkTokenBinding(
  request: GatehouseRequest,
  context: RealmContext,
  url: string,
  presented: PresentedAccessToken,
  record: AccessTokenRecord,
): Promise<void> {
  const { realm } = context;
  const bound = record.cnf?.jkt;
  if (bound === undefined) {
    if (presented.scheme === 'Bearer') return;
    throw dpopError(realm, 'invalid_token', 'the access token is not DPoP-bound');
  }
  if (presented.scheme === 'Bearer') {
    throw dpopError(realm, 'invalid_token', 'the access token is DPoP-bound: present it as DPoP');
  }
  try {
    const proof = proofHeader(request);
    if (proof === undefined) {
      throw dpopError(realm, 'invalid_dpop_proof', 'a DPoP proof is required with the token');
    }
    const target = { method: request.method, url, accessToken: presented.token };
    if ((await verifyProof(proof, target, realmProofRules(context))) !== bound) {
      throw dpopError(realm, 'invalid_dpop_proof', 'the DPoP proof is signed by another key');
    }
  } catch (error) {
    if (!(error instanceof OAuthError) || error.headers['www-authenticate'] !== undefined) {
      throw error;
    }
    if (error.code !== 'invalid_dpop_proof' && error.code !== 'use_dpop_nonce') throw error;
    throw dpopError(realm, error.code, error.description ?? error.code);
  }
}
