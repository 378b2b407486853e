import type { RealmContext } from '../context.js';
import { decideDeviceRequest } from '../device/device-request.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { GatehouseResponse } from '../http/types.js';
import type { LoadedSession } from '../sessions/session.js';
import { shownAtProvider } from './authorization-error.js';
import { respondToClient, targetOf } from './redirect.js';
import type { AuthorizationRequest } from './request.js';

/** What the verification page is told, beside `iss`, when the user approved: `?result=approved`. */
export const DEVICE_APPROVED = { result: 'approved' } as const;

/**
 * The end of a device's authorization once the user signed in and consented: the request is
 * approved for the signed-in user with the consented scopes, for the device's next poll, and the
 * browser goes back to the verification page, which tells the user to return to the device.
 */
export async function approveDevice(
  context: RealmContext,
  request: AuthorizationRequest,
  device: NonNullable<AuthorizationRequest['device']>,
  session: LoadedSession,
  scopes: string[],
  delivery: { method: string; cookies: readonly string[] },
): Promise<GatehouseResponse> {
  const { sub, authTime, acr, amr } = session.record;
  const approved = await decideDeviceRequest(context, device.requestId, {
    approve: {
      sub,
      scopes,
      authTime,
      ...(acr === undefined ? {} : { acr }),
      ...(amr === undefined ? {} : { amr: [...amr] }),
    },
  });
  if (!approved) {
    throw shownAtProvider(
      'invalid_request',
      'this device sign-in has expired or was already answered; start again on the device',
    );
  }
  return respondToClient(
    targetOf(request),
    DEVICE_APPROVED,
    context.realm.issuer,
    delivery.method,
    delivery.cookies,
  );
}

/**
 * Runs a step of a device's authorization: any OAuth error it ends in (the user denied, could
 * not sign in, granted nothing) denies the device's request, so its next poll hears
 * access_denied instead of waiting for the expiry. The error then goes on to the browser.
 */
export async function deniedOnError<T>(
  context: RealmContext,
  device: AuthorizationRequest['device'],
  step: () => Promise<T>,
): Promise<T> {
  if (!device) return step();
  try {
    return await step();
  } catch (error) {
    if (error instanceof OAuthError) {
      await decideDeviceRequest(context, device.requestId, { deny: true });
    }
    throw error;
  }
}
