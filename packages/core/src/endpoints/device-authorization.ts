import { type Found, need, runChecks } from '../authorization/checks/check.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import { DEVICE_CODE_GRANT_TYPE } from '../config/client.js';
import { type EndpointHandler, nowSeconds } from '../context.js';
import { createDeviceRequest } from '../device/device-request.js';
import { formatUserCode } from '../device/user-code.js';
import { OAuthError } from '../errors/oauth-error.js';
import { readForm } from '../http/read-form.js';
import { appendQuery } from '../http/redirect.js';
import { noStoreJson } from '../http/responses.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Device authorization endpoint (RFC 8628 §3.1, §3.2): client authentication as at the token
 * endpoint (public clients included), the device row of the checks table, then a pending request
 * stored under a device_code for the device to poll with and a user code for the user to type at
 * `verification_uri`, or to find filled in at `verification_uri_complete`.
 */
export const deviceAuthorizationEndpoint: EndpointHandler = async (request, context) => {
  const params = readForm(request, context.maxBodyBytes);
  const client = await authenticateClient(
    request,
    params,
    context,
    ENDPOINT_PATHS.deviceAuthorization,
  );
  if (!client.grantTypes.has(DEVICE_CODE_GRANT_TYPE)) {
    throw new OAuthError(
      'unauthorized_client',
      `this client may not use ${DEVICE_CODE_GRANT_TYPE}`,
    );
  }
  const found: Found = {};
  await runChecks(AUTHORIZATION_CHECKS.device, { params, context, client, found });

  const { device_code_ttl: expiresIn, device_poll_interval: interval } = context.realm.config;
  const { deviceCode, userCode } = await createDeviceRequest(context, {
    realm: context.realm.name,
    clientId: client.id,
    scopes: need(found, 'scopes'),
    ...(found.resource === undefined ? {} : { resource: found.resource }),
    state: 'pending',
    expiresAt: nowSeconds(context) + expiresIn,
    interval,
    lastPollAtMs: context.now(),
  });
  const shown = formatUserCode(userCode);
  const verificationUri = context.deviceVerificationUrl(context.realm.name);
  return noStoreJson(200, {
    device_code: deviceCode,
    user_code: shown,
    verification_uri: verificationUri,
    verification_uri_complete: appendQuery(
      verificationUri,
      `user_code=${encodeURIComponent(shown)}`,
    ),
    expires_in: expiresIn,
    interval,
  });
};
