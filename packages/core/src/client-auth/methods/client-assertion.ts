import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { ASYMMETRIC_ASSERTION_ALGORITHMS, HMAC_ALGORITHMS } from '../../config/client.js';
import { isFapi2, isFapi2Algorithm } from '../../config/fapi2.js';
import { nowSeconds, type RealmContext } from '../../context.js';
import { ENDPOINT_PATHS } from '../../endpoints/paths.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { firstUseOfJti } from '../../jwt/jti-replay.js';
import { type VerifyJwtOptions, verifyJwt } from '../../jwt/verify-jwt.js';
import type { Client } from '../../realms/realm.js';
import { JwksFetchError } from '../fetch-jwks.js';
import type { PresentedCredentials } from '../presented.js';
import { livePreviousSecret } from './client-secret.js';

/**
 * RFC 7523 leaves the lifetime to the server; a short one bounds what a stolen assertion is worth.
 */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/**
 * FAPI 2.0 SP §5.3.2.1-13: an `iat` up to 10 s ahead is a client's clock; over 60 s it is refused
 * (nbf is held to the clock tolerance below).
 */
const MAX_IAT_AHEAD_SECONDS = 60;
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_JTI_LENGTH = 256;
const JTI_NAMESPACE = 'assertion_jti';

/**
 * client_secret_jwt and private_key_jwt (RFC 7523 §3, OIDC Core 1.0 §9): the signature is checked
 * only against the client's registered secret or keys, with algorithms pinned to the method, so
 * header-supplied keys (`jwk`, `jku`, `x5u`, `x5c`), `none` and HMAC-with-a-public-key never pass.
 * `iss` = `sub` = client_id, `aud` the issuer, the endpoint called or the token endpoint (which
 * many client libraries send whatever the endpoint; in a fapi2 realm the issuer only), `exp` required and near, and every `jti` is
 * accepted once.
 */
export async function verifyClientAssertion(
  client: Client | undefined,
  presented: PresentedCredentials,
  context: RealmContext,
  endpointUrl: string,
): Promise<boolean> {
  const keys = client ? verificationKeys(client, context) : [];
  if (!client || keys.length === 0 || presented.kind !== 'assertion') return false;
  const pinned = client.config.token_endpoint_auth_signing_alg;
  const family =
    client.config.token_endpoint_auth_method === 'client_secret_jwt'
      ? HMAC_ALGORITHMS
      : ASYMMETRIC_ASSERTION_ALGORITHMS;

  // FAPI 2.0 SP §5.4 and §5.3.2.1-8: its three algorithms, and the issuer as the only audience.
  const fapi2 = isFapi2(context.realm.config);
  const algorithms = pinned ? [pinned] : [...family];
  const options = {
    algorithms: fapi2 ? algorithms.filter(isFapi2Algorithm) : algorithms,
    issuer: client.id,
    subject: client.id,
    audience: fapi2
      ? [context.realm.issuer]
      : [context.realm.issuer, endpointUrl, context.realm.url(ENDPOINT_PATHS.token)],
    requiredClaims: ['exp', 'jti'],
    currentDate: new Date(context.now()),
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  let payload: { exp?: number; iat?: number; jti?: string; aud?: unknown } | undefined;
  try {
    for (const key of keys) {
      payload = await signedWith(context, presented.assertion, key, options);
      if (payload) break;
    }
  } catch (error) {
    if (error instanceof errors.JOSEError) return false;
    // Its jwks_uri could not be fetched: reported by the key set when the fetch failed.
    if (error instanceof JwksFetchError) {
      throw new OAuthError('invalid_client', 'the client keys could not be fetched');
    }
    // The client's registered keys are unusable or its jwks_uri unreachable: the client cannot
    // authenticate, and operators must hear of it.
    throw new OAuthError('invalid_client', 'the client keys could not be used', {
      cause: error,
      reportCause: true,
    });
  }
  // A single audience (draft-ietf-oauth-rfc7523bis): an array could carry another server's too.
  if (payload === undefined || typeof payload.aud !== 'string') return false;

  const now = nowSeconds(context);
  if (payload.iat !== undefined && payload.iat > now + MAX_IAT_AHEAD_SECONDS) {
    throw new OAuthError('invalid_client', 'client_assertion is issued in the future');
  }
  const exp = payload.exp ?? 0;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS) {
    throw new OAuthError(
      'invalid_client',
      `client_assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`,
    );
  }
  const jti = String(payload.jti);
  if (jti.length > MAX_JTI_LENGTH)
    throw new OAuthError('invalid_client', 'client_assertion jti is too long');
  const firstUse = await firstUseOfJti(
    context,
    JTI_NAMESPACE,
    client.id,
    jti,
    exp,
    CLOCK_TOLERANCE_SECONDS,
  );
  if (!firstUse) throw new OAuthError('invalid_client', 'client_assertion has already been used');
  return true;
}

type VerificationKey = Uint8Array | JWTVerifyGetKey;

/**
 * The assertion's payload when it is signed with `key`, undefined when its signature is not; any
 * other problem throws. A secret (client_secret_jwt) is jose's HMAC; public keys go through the
 * provider's verifier.
 */
async function signedWith(
  context: RealmContext,
  assertion: string,
  key: VerificationKey,
  options: VerifyJwtOptions,
): Promise<JWTPayload | undefined> {
  try {
    const verified =
      key instanceof Uint8Array
        ? await jwtVerify(assertion, key, { ...options, algorithms: [...options.algorithms] })
        : await verifyJwt(context.verifier, assertion, key, options);
    return verified.payload;
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return undefined;
    throw error;
  }
}

/**
 * What the assertion may be signed with: the secret, and the previous one during a rotation's
 * overlap, or the client's key set (a remote set is the provider's).
 */
function verificationKeys(client: Client, context: RealmContext): VerificationKey[] {
  const key = client.assertionKey;
  if (key === undefined) return [];
  if (key instanceof Uint8Array) {
    const previous = livePreviousSecret(client, context);
    return previous ? [key, previous.hmacKey] : [key];
  }
  if (typeof key === 'function') return [key];
  return [context.remoteKeySets.keyFor(context.realm.name, { kind: 'client', id: client.id }, key)];
}
