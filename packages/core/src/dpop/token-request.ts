import { isFapi2 } from '../config/fapi2.js';
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
 * `dpop_bound_access_tokens` (§5.2) or its realm is a `fapi2` one.
 */
export async function tokenRequestKey(
  request: GatehouseRequest,
  client: Client,
  context: RealmContext,
): Promise<string | undefined> {
  const proof = proofHeader(request);
  if (proof === undefined) {
    // FAPI 2.0 SP §5.3.2.1-4 and -5: a fapi2 realm issues sender-constrained tokens only.
    if (isFapi2(context.realm.config)) {
      throw invalidProof('this realm requires a DPoP proof with every token request');
    }
    if (client.config.dpop_bound_access_tokens) {
      throw invalidProof('this client must send a DPoP proof with every token request');
    }
    return undefined;
  }
  const url = context.realm.url(ENDPOINT_PATHS.token);
  return verifyProof(proof, { method: request.method, url }, realmProofRules(context));
}
