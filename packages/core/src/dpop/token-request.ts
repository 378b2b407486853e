import type { RealmContext } from '../context.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import { invalidProof } from './proof-error.js';
import { proofHeader } from './proof-header.js';
import { realmProofRules, verifyProof } from './verify-proof.js';

/**
 * The key a token request's DPoP proof binds the new tokens to (RFC 9449 §5), or undefined for a
 * request without a proof, which gets Bearer tokens unless its client is registered with
 * `dpop_bound_access_tokens` (§5.2).
 */
export async function tokenRequestKey(
  request: GatehouseRequest,
  client: Client,
  context: RealmContext,
): Promise<string | undefined> {
  const proof = proofHeader(request);
  if (proof === undefined) {
    if (client.config.dpop_bound_access_tokens) {
      throw invalidProof('this client must send a DPoP proof with every token request');
    }
    return undefined;
  }
  const url = context.realm.url(ENDPOINT_PATHS.token);
  return verifyProof(proof, { method: request.method, url }, realmProofRules(context));
}
