import { decodeJwt, errors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { JwksFetchError } from '../client-auth/fetch-jwks.js';
import { MAX_ASSERTION_LIFETIME_SECONDS } from '../client-auth/methods/client-assertion.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { OAuthError } from '../errors/oauth-error.js';
import { firstUseOfJti } from '../jwt/jti-replay.js';
import { type VerifyJwtOptions, verifyJwt } from '../jwt/verify-jwt.js';
import type { TrustedIssuer } from '../realms/realm.js';

/** The `typ` of an Identity Assertion JWT Authorization Grant. */
export const ID_JAG_JWT_TYPE = 'oauth-id-jag+jwt';
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_JTI_LENGTH = 256;
const JTI_NAMESPACE = 'jwt_bearer_jti';

export interface TrustedAssertion {
  trusted: TrustedIssuer;
  payload: JWTPayload & { sub: string; jti: string; exp: number };
}

/**
 * The `assertion` of a jwt-bearer request (RFC 7523 §3), verified against the one trusted issuer
 * its `iss` names: only that issuer's keys (configured or fetched from its jwks_uri), only its
 * asymmetric algorithms (never `none` nor HMAC), `typ` `oauth-id-jag+jwt` for an `id-jag` issuer,
 * `aud` this realm's issuer (or, for plain assertions, its token endpoint), `sub`, `jti`, `iat`
 * and `exp` present, `exp` within five minutes and `nbf` met, with 30 seconds of clock skew.
 * Any failure is invalid_grant with a description that never repeats the assertion.
 */
export async function verifyTrustedAssertion(
  assertion: string,
  context: RealmContext,
): Promise<TrustedAssertion> {
  const trusted = trustedIssuerOf(assertion, context);
  const { realm } = context;
  const idJag = trusted.profile === 'id-jag';
  const options: VerifyJwtOptions = {
    algorithms: [...trusted.algorithms],
    issuer: trusted.issuer,
    audience: idJag ? realm.issuer : [realm.issuer, realm.url(ENDPOINT_PATHS.token)],
    requiredClaims: ['sub', 'jti', 'iat', 'exp'],
    currentDate: new Date(context.now()),
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    ...(idJag ? { typ: ID_JAG_JWT_TYPE } : {}),
  };
  let payload: JWTPayload;
  try {
    const key = keyOf(trusted, context);
    payload = (await verifyJwt(context.verifier, assertion, key, options)).payload;
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof JwksFetchError)
      throw assertionError(error);
    throw error;
  }
  const { sub, jti, exp } = payload;
  if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number')
    throw new OAuthError('invalid_grant', 'assertion sub, jti and exp must be present');
  if (exp > nowSeconds(context) + MAX_ASSERTION_LIFETIME_SECONDS)
    throw new OAuthError(
      'invalid_grant',
      `assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`,
    );
  if (jti.length > MAX_JTI_LENGTH)
    throw new OAuthError('invalid_grant', 'assertion jti is too long');
  return { trusted, payload: { ...payload, sub, jti, exp } };
}

/**
 * Records the assertion's `jti` in the shared store, after every other check of the request:
 * an assertion is accepted once, at whichever instance sees it first.
 */
export async function consumeTrustedAssertion(
  { trusted, payload }: TrustedAssertion,
  context: RealmContext,
): Promise<void> {
  const { jti, exp } = payload;
  const args = [JTI_NAMESPACE, trusted.issuer, jti, exp, CLOCK_TOLERANCE_SECONDS] as const;
  if (!(await firstUseOfJti(context, ...args)))
    throw new OAuthError('invalid_grant', 'assertion has already been used');
}

function trustedIssuerOf(assertion: string, context: RealmContext): TrustedIssuer {
  let iss: unknown;
  try {
    iss = decodeJwt(assertion).iss;
  } catch {
    throw new OAuthError('invalid_grant', 'assertion is not a JWT');
  }
  const trusted = typeof iss === 'string' ? context.realm.trustedIssuers.get(iss) : undefined;
  if (!trusted)
    throw new OAuthError('invalid_grant', 'assertion issuer is not trusted by this realm');
  return trusted;
}

function keyOf(trusted: TrustedIssuer, context: RealmContext): JWTVerifyGetKey {
  const { keys } = trusted;
  if (typeof keys === 'function') return keys;
  const holder = { kind: 'trusted issuer', id: trusted.issuer } as const;
  return context.remoteKeySets.keyFor(context.realm.name, holder, keys);
}

/** What went wrong, said without the assertion's content. */
function assertionError(error: errors.JOSEError | JwksFetchError): OAuthError {
  if (error instanceof JwksFetchError)
    return new OAuthError('temporarily_unavailable', "the issuer's keys could not be fetched");
  const description =
    error instanceof errors.JWTExpired
      ? 'assertion has expired'
      : error instanceof errors.JWTClaimValidationFailed
        ? `assertion ${error.claim} claim is not acceptable`
        : error instanceof errors.JOSEAlgNotAllowed
          ? 'assertion is signed with an algorithm this issuer may not use'
          : error instanceof errors.JWKSNoMatchingKey ||
              error instanceof errors.JWKSMultipleMatchingKeys
            ? 'assertion is signed with a key the issuer does not publish'
            : error instanceof errors.JWSSignatureVerificationFailed
              ? 'assertion signature is invalid'
              : 'assertion is not a valid signed JWT';
  return new OAuthError('invalid_grant', description);
}
