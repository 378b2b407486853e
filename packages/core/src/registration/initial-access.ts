import type { RegistrationConfig } from '../config/registration.js';
import { secretMatches, sha256Bytes } from '../crypto/digest.js';
import { bearerError, bearerToken } from '../http/bearer.js';
import type { GatehouseRequest } from '../http/types.js';

/** Digests of initial access tokens, computed once per configured token. */
const digests = new WeakMap<RegistrationConfig, Uint8Array>();

/**
 * Lets a registration through when the realm is open, or when it carries the realm's initial
 * access token as a Bearer (RFC 7591 §3), compared in constant time; 401 `invalid_token` else.
 */
export function checkInitialAccess(
  request: GatehouseRequest,
  issuer: string,
  settings: RegistrationConfig,
): void {
  if (settings.open) return;
  const presented = bearerToken(request, issuer);
  const expected = settings.initial_access_token;
  if (presented !== undefined && expected !== undefined) {
    let digest = digests.get(settings);
    if (!digest) {
      digest = sha256Bytes(expected);
      digests.set(settings, digest);
    }
    if (secretMatches(presented, digest)) return;
  }
  throw bearerError(
    issuer,
    'invalid_token',
    'a valid initial access token is required to register',
  );
}
