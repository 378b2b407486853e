import type { RealmContext } from '../context.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { Params } from '../http/form.js';
import type { GatehouseRequest } from '../http/types.js';
import { invalidProof } from './proof-error.js';
import { proofHeader } from './proof-header.js';
import { realmProofRules, verifyProof } from './verify-proof.js';

/**
 * RFC 9449 §10.1: a DPoP proof sent to the PAR endpoint binds the authorization code to its key,
 * exactly as `dpop_jkt` does, so the pushed request is kept with that `dpop_jkt`. When the request
 * names a `dpop_jkt` too, both must be the same key. Without a proof the request is unchanged.
 */
export async function withPushedProofKey(
  request: GatehouseRequest,
  params: Params,
  context: RealmContext,
): Promise<Params> {
  const proof = proofHeader(request);
  if (proof === undefined) return params;
  const url = context.realm.url(ENDPOINT_PATHS.pushedAuthorization);
  const jkt = await verifyProof(proof, { method: request.method, url }, realmProofRules(context));
  const named = params.get('dpop_jkt');
  if (named !== undefined && named !== jkt) {
    throw invalidProof('dpop_jkt does not name the key of the DPoP proof');
  }
  const values = new Map(params.names().map((name) => [name, params.get(name) ?? '']));
  values.set('dpop_jkt', jkt);
  return new Params(values, params.repeated);
}
