import type { RealmContext } from '../../context.js';
import type { Client } from '../../realms/realm.js';
import { verifyIdTokenHint } from '../../tokens/id-token-hint.js';
import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * OIDC Core 1.0 §3.1.2.1 and CIBA Core 1.0 §7.1: an id_token_hint names a user through an ID
 * token this realm issued to this very client, expired or not (tokens/id-token-hint.ts checks
 * the token). The one verifier of the authorization endpoint, PAR and CIBA, with one set of
 * messages.
 */
export async function hintedUser(
  context: RealmContext,
  client: Client,
  hint: string,
): Promise<string> {
  const verified = await verifyIdTokenHint(context, hint);
  if (!verified) {
    throw redirected('invalid_request', 'id_token_hint is not an ID token of this realm');
  }
  if (!verified.audience.includes(client.id)) {
    throw redirected('invalid_request', 'id_token_hint was issued to another client');
  }
  return verified.sub;
}

/** Optional at the authorization endpoint: only the user it names may then be signed in. */
export async function checkIdTokenHint({ params, context, client, found }: RequestState) {
  const hint = params.get('id_token_hint');
  if (hint === undefined) return;
  const sub = await hintedUser(context, client, hint);
  found.expectedSub = sub;
  found.hintedSub = sub;
}

/** Required at the CIBA endpoint, where it is the one way to name the user. */
export async function requireIdTokenHint(state: RequestState): Promise<void> {
  if (!state.params.has('id_token_hint')) {
    throw redirected('invalid_request', 'id_token_hint is required');
  }
  await checkIdTokenHint(state);
}
