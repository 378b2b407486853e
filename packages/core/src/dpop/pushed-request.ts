import type { RealmContext } from '../context.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { type Params, paramsFromPairs } from '../http/form.js';
import type { GatehouseRequest } from '../http/types.js';
import { invalidProof } from './proof-error.js';
import { proofHeader } from './proof-header.js';
import { realmProofRules, verifyProof } from './verify-proof.js';

/**
 * The key of the DPoP proof sent with a pushed authorization request (RFC 9449 §10.1), checked
 * as at the token endpoint but for the PAR endpoint's URL; undefined without a proof.
 */
export async function pushedRequestKey(
  request: GatehouseRequest,
  context: RealmContext,
): Promise<string | undefined> {
  const proof = proofHeader(request);
  if (proof === undefined) return undefined;
  const url = context.realm.url(ENDPOINT_PATHS.pushedAuthorization);
  return verifyProof(proof, { method: request.method, url }, realmProofRules(context));
}

/**
 * The pushed request bound to the proof's key as `dpop_jkt` binds it (§10.1): the code it leads
 * to is redeemed only with a proof of that key. A `dpop_jkt` sent too must name the same key.
 */
export function boundToProofKey(params: Params, jkt: string | undefined): Params {
  if (jkt === undefined) return params;
  const asked = params.get('dpop_jkt');
  if (asked === jkt) return params;
  if (asked !== undefined) {
    throw invalidProof('dpop_jkt is not the thumbprint of the key of the DPoP proof');
  }
  return paramsFromPairs([
    ...params.names().map((name) => [name, params.get(name) as string] as const),
    ['dpop_jkt', jkt],
  ]);
}
