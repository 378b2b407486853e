import type { RealmContext } from '../context.js';
import type { Params } from '../http/form.js';
import { type Check, type Found, need, runChecks } from './checks/check.js';
import type { AuthorizationRequest } from './request.js';
import type { TrustedTarget } from './trusted-target.js';

/**
 * Runs a row of the checks table (checks/index.ts) on a request whose client and redirect_uri
 * are trusted, and returns the request they found. Each failure is an OAuth error, redirected to
 * the trusted target at the authorization endpoint.
 */
export async function validateRequest(
  params: Params,
  context: RealmContext,
  { client, target }: TrustedTarget,
  checks: readonly Check[],
  pushed = false,
): Promise<AuthorizationRequest> {
  const found: Found = {
    clientId: client.id,
    redirectUri: target.redirectUri,
    ...(target.state === undefined ? {} : { state: target.state }),
  };
  await runChecks(checks, { params, context, client, found, pushed });
  return {
    ...found,
    clientId: client.id,
    redirectUri: target.redirectUri,
    responseType: need(found, 'responseType'),
    responseMode: need(found, 'responseMode'),
    scopes: need(found, 'scopes'),
    prompt: need(found, 'prompt'),
  };
}
