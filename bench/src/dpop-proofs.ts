import { decodeJwt } from 'jose';
import type { DpopKey } from '../../test/support/dpop.js';
import {
  checkTokenEndpoint,
  postForm,
  TOKEN_REQUEST_BODY,
  type TokenEndpoint,
} from './token-request.js';

/** `count` proofs by `key` of a POST to `htu`, each with its own `jti`, issued now. */
export const proofsOf = (key: DpopKey, htu: string, count: number): Promise<string[]> =>
  Promise.all(Array.from({ length: count }, () => key.proof({ htu })));

/**
 * Sends one client_credentials request with a proof of `key` and fails unless the answer is a
 * DPoP token bound to the key (`cnf.jkt`), then sends the same proof again and fails unless it is
 * refused as a replay: both servers must do the whole proof check, its `jti` record included.
 */
export async function checkDpopClientCredentials(
  endpoint: TokenEndpoint,
  key: DpopKey,
): Promise<void> {
  const proof = await key.proof({ htu: dpopTokenUrl(endpoint) });
  const checked = await checkTokenEndpoint(endpoint, 'client_credentials', undefined, {
    dpop: proof,
  });
  const bound = decodeJwt(checked.accessToken).cnf as { jkt?: string } | undefined;
  if (checked.tokenType.toLowerCase() !== 'dpop' || bound?.jkt !== key.jkt) {
    throw new Error(`a DPoP token request got a ${checked.tokenType} token bound to ${bound?.jkt}`);
  }
  const replay = await postForm(endpoint.baseUrl + endpoint.tokenPath, TOKEN_REQUEST_BODY, {
    dpop: proof,
  });
  // oidc-provider answers a replay at its token endpoint with invalid_grant.
  const refusal = JSON.parse(replay.text).error;
  if (replay.status !== 400 || !['invalid_dpop_proof', 'invalid_grant'].includes(refusal)) {
    throw new Error(`a replayed DPoP proof answered ${replay.status}: ${replay.text}`);
  }
}

/** The `htu` of the server's token endpoint. */
export const dpopTokenUrl = (endpoint: TokenEndpoint) =>
  endpoint.issuerTokenUrl ?? endpoint.baseUrl + endpoint.tokenPath;
