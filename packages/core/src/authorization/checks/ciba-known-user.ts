import { OAuthError } from '../../errors/oauth-error.js';
import { need, type RequestState } from './check.js';

/** CIBA Core 1.0 §13: the hinted user must still have an account, else unknown_user_id. */
export async function checkCibaKnownUser({ context, found }: RequestState): Promise<void> {
  const sub = need(found, 'hintedSub');
  if (!(await context.accounts.findAccount(context.realm.name, sub))) {
    throw new OAuthError('unknown_user_id', 'the user of id_token_hint is not known');
  }
}
