import { DEVICE_CODE_GRANT_TYPE } from '../config/client.js';
import { nowSeconds, type RealmContext } from '../context.js';
import {
  consumeDeviceRequest,
  type DeviceApproval,
  type DeviceRequestRecord,
  deviceRequestId,
  readDeviceRequest,
  replaceDeviceRequest,
} from '../device/device-request.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { TokenFamily } from '../lifecycle/token-family.js';
import type { Client } from '../realms/realm.js';
import { CHANGED, untilSettled } from '../store/transition.js';
import { consentedGrant, polledTooSoon } from './decoupled-grant.js';
import type { GrantTypeHandler } from './grant-type.js';
import { userTokenResource, userTokenResponse } from './user-token-response.js';

/** RFC 8628 §3.5: what a poll sooner than the interval adds to it. */
const SLOW_DOWN_SECONDS = 5;

/**
 * The device's poll (RFC 8628 §3.4, §3.5). Every answer but the tokens is an error:
 * authorization_pending while the user has not answered; slow_down for a poll sooner than
 * `interval` after the previous one (or the request), which adds 5 seconds to the interval;
 * access_denied once denied; expired_token past the expiry. The approved request is spent by
 * the store's one-time consume: of any number of racing polls exactly one gets the tokens.
 */
export const deviceCodeGrant: GrantTypeHandler = async (params, client, context, dpopJkt) => {
  const deviceCode = params.get('device_code');
  if (deviceCode === undefined) throw new OAuthError('invalid_request', 'device_code is required');
  const requestId = deviceRequestId(deviceCode);
  const approval = await untilSettled(() => poll(context, client, requestId), 'the device request');
  const consumed = await consumeDeviceRequest(context, requestId);
  const consumedAtMs = context.now();
  if (!consumed?.firstUse)
    throw new OAuthError('invalid_grant', 'the device_code was already used');
  const request = consumed.value;

  // Approvals can wait minutes; the account may have gone meanwhile, as at the other grants.
  const account = await context.accounts.findAccount(context.realm.name, approval.sub);
  if (!account)
    throw new OAuthError('invalid_grant', 'the account of this request no longer exists');
  const grant: TokenFamily = {
    grantId: await consentedGrant(context, approval.sub, client.id, approval.scopes),
    realm: request.realm,
    sub: approval.sub,
    clientId: request.clientId,
    scopes: approval.scopes,
    authTime: approval.authTime,
    ...(request.resource === undefined ? {} : { resource: request.resource }),
    ...(approval.acr === undefined ? {} : { acr: approval.acr }),
    ...(approval.amr === undefined ? {} : { amr: approval.amr }),
  };
  return userTokenResponse(context, client, {
    grantType: DEVICE_CODE_GRANT_TYPE,
    grant,
    account,
    scopes: grant.scopes,
    resource: userTokenResource(params.get('resource'), grant, context.realm, grant.scopes),
    consumedAtMs,
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  });
};

/**
 * One poll of the request: the user's approval when there is one, or the error the device hears
 * (each waiting poll recorded, compare-and-set), or CHANGED when a concurrent poll or the user's
 * decision wrote the request first.
 */
async function poll(
  context: RealmContext,
  client: Client,
  requestId: string,
): Promise<DeviceApproval | typeof CHANGED> {
  const read = await readDeviceRequest(context, requestId);
  // One description for unknown and foreign codes: the answer does not confirm a code exists.
  if (!read || read.value.clientId !== client.id) {
    throw new OAuthError('invalid_grant', 'device_code is unknown or was issued to another client');
  }
  const request = read.value;
  if (nowSeconds(context) >= request.expiresAt) {
    throw new OAuthError('expired_token', 'the device_code has expired');
  }
  if (request.state === 'denied')
    throw new OAuthError('access_denied', 'the user denied the request');
  if (request.state === 'approved' && request.approval) return request.approval;
  const nowMs = context.now();
  const waited = (next: Partial<DeviceRequestRecord>) =>
    replaceDeviceRequest(context, requestId, read.revision, {
      ...request,
      ...next,
      lastPollAtMs: nowMs,
    });
  if (polledTooSoon(request, nowMs)) {
    if (!(await waited({ interval: request.interval + SLOW_DOWN_SECONDS }))) return CHANGED;
    throw new OAuthError(
      'slow_down',
      'polled sooner than the interval allows; wait 5 more seconds between polls from now on',
    );
  }
  if (!(await waited({}))) return CHANGED;
  throw new OAuthError('authorization_pending', 'the user has not answered yet');
}
