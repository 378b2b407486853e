import {
  type CibaRequestRecord,
  readCibaRequest,
  replaceCibaRequest,
} from '../ciba/ciba-request.js';
import { CIBA_GRANT_TYPE } from '../config/client.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { GatehouseResponse } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import { CHANGED, untilSettled } from '../store/transition.js';
import { consentedGrant, polledTooSoon } from './decoupled-grant.js';
import type { GrantTypeHandler } from './grant-type.js';
import { userTokenResponse } from './user-token-response.js';

/**
 * The CIBA poll (CIBA Core 1.0 §10.1, docs/interface.md §4.7 and §3). Every answer but the tokens
 * is an error: authorization_pending while the user has not answered; slow_down for a poll sooner
 * than `interval` after the previous one (or the initiation), which also cancels the request, as
 * the interface says; access_denied once denied; expired_token past the expiry; invalid_grant for a
 * cancelled or already answered request. The approved request gives its tokens exactly once (at
 * once to a ping client, whatever the interval). Each
 * step is one compare-and-set, re-read when a concurrent poll or decision got there first.
 */
export const cibaGrant: GrantTypeHandler = async (params, client, context, dpopJkt) => {
  const authReqId = params.get('auth_req_id');
  if (authReqId === undefined) throw new OAuthError('invalid_request', 'auth_req_id is required');
  return untilSettled(async () => {
    const read = await readCibaRequest(context, authReqId);
    if (!read || read.value.clientId !== client.id) {
      throw new OAuthError(
        'invalid_grant',
        'auth_req_id is unknown or was issued to another client',
      );
    }
    return poll(context, client, authReqId, read.revision, read.value, dpopJkt);
  }, 'the CIBA request');
};

async function poll(
  context: RealmContext,
  client: Client,
  authReqId: string,
  revision: number,
  request: CibaRequestRecord,
  dpopJkt: string | undefined,
): Promise<GatehouseResponse | typeof CHANGED> {
  const now = nowSeconds(context);
  const nowMs = context.now();
  const transition = (next: Partial<CibaRequestRecord>) =>
    replaceCibaRequest(context, authReqId, revision, { ...request, ...next, lastPollAtMs: nowMs });

  if (request.state === 'cancelled' || request.state === 'issued') {
    throw new OAuthError('invalid_grant', 'this backchannel request is no longer valid');
  }
  if (now >= request.expiresAt) throw new OAuthError('expired_token', 'the request has expired');
  if (request.state === 'denied')
    throw new OAuthError('access_denied', 'the user denied the request');
  // A ping client asks as soon as it is told (CIBA Core 1.0 §10.2): the interval bounds polls
  // of a request still pending, not the one request a ping announced.
  const announced = request.ping !== undefined && request.state === 'approved';
  if (!announced && polledTooSoon(request, nowMs)) {
    if (!(await transition({ state: 'cancelled' }))) return CHANGED;
    throw new OAuthError(
      'slow_down',
      'polled sooner than the interval allows; the request is cancelled',
    );
  }
  if (request.state === 'pending') {
    if (!(await transition({}))) return CHANGED;
    throw new OAuthError('authorization_pending', 'the user has not answered yet');
  }
  // An approval can wait for hours; the account may have gone meanwhile, as at the other grants.
  const account = await context.accounts.findAccount(context.realm.name, request.sub);
  if (!account)
    throw new OAuthError('invalid_grant', 'the account of this request no longer exists');
  if (!(await transition({ state: 'issued' }))) return CHANGED;
  const approval = request.approval ?? { authTime: now };
  const grantId = await consentedGrant(context, request.sub, request.clientId, request.scopes);
  return userTokenResponse(context, client, {
    grantType: CIBA_GRANT_TYPE,
    grant: {
      grantId,
      realm: request.realm,
      sub: request.sub,
      clientId: request.clientId,
      scopes: request.scopes,
      authTime: approval.authTime,
      ...(approval.acr === undefined ? {} : { acr: approval.acr }),
      ...(approval.amr === undefined ? {} : { amr: approval.amr }),
    },
    account,
    scopes: request.scopes,
    resource: undefined,
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  });
}
