import { errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { AccessTokenClaims } from './access-token.js';
import { TokenError, UpstreamError } from './token-error.js';

/** How JWT access tokens are checked (RFC 9068 §4). */
export interface JwtRules {
  issuer: string;
  /** The resource: `aud` must name it. */
  audience: string;
  algorithms: readonly string[];
  keys: JWTVerifyGetKey;
  clockToleranceSeconds: number;
  /** Also accept `typ` `JWT` (or none), requiring only iss, aud and exp. */
  allowGenericJwt: boolean;
  now: () => number;
}

/** The claims RFC 9068 §2.2 requires of every JWT access token. */
const RFC9068_CLAIMS = ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'];
const GENERIC_CLAIMS = ['iss', 'exp', 'aud'];

/**
 * Verifies a JWT access token: signature by a key of the issuer under an allowed algorithm,
 * `typ` `at+jwt`, issuer, audience, expiry and not-before within the clock tolerance, and the
 * claims RFC 9068 requires. Bad tokens are `invalid_token`; keys that cannot be fetched, an
 * UpstreamError.
 */
export async function verifyJwtAccessToken(
  token: string,
  rules: JwtRules,
): Promise<AccessTokenClaims> {
  const { payload, protectedHeader } = await jwtVerify<AccessTokenClaims>(token, rules.keys, {
    issuer: rules.issuer,
    audience: rules.audience,
    algorithms: rules.algorithms as string[],
    clockTolerance: rules.clockToleranceSeconds,
    requiredClaims: rules.allowGenericJwt ? GENERIC_CLAIMS : RFC9068_CLAIMS,
    currentDate: new Date(rules.now()),
  }).catch((error: unknown) => {
    throw tokenErrorOf(error);
  });
  if (!acceptedTyp(protectedHeader.typ, rules.allowGenericJwt)) {
    throw new TokenError('invalid_token', 'the token is not a JWT access token (typ at+jwt)');
  }
  return payload;
}

/** `at+jwt`, with or without `application/`, in any case (RFC 9068 §4, RFC 8725 §3.11). */
function acceptedTyp(typ: string | undefined, allowGenericJwt: boolean): boolean {
  const type = typ?.toLowerCase().replace(/^application\//, '');
  return type === 'at+jwt' || (allowGenericJwt && (type === undefined || type === 'jwt'));
}

const CLAIM_DESCRIPTIONS: Readonly<Record<string, string>> = {
  iss: 'the token is from another issuer',
  aud: 'the token is not meant for this resource',
  nbf: 'the token is not valid yet',
};

function tokenErrorOf(error: unknown): Error {
  const invalid = (description: string) =>
    new TokenError('invalid_token', description, { cause: error });
  if (error instanceof UpstreamError) return error;
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return new UpstreamError('the issuer keys could not be read', { cause: error });
  }
  if (error instanceof errors.JWTExpired) return invalid('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return invalid('the token lacks a claim RFC 9068 requires');
    return invalid(
      CLAIM_DESCRIPTIONS[error.claim] ?? `the token's ${error.claim} claim is invalid`,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return invalid('the token is signed with an algorithm this resource does not accept');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return invalid('the token signature is invalid');
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return invalid('the token names no key of the issuer');
  }
  if (error instanceof errors.JOSEError) return invalid('the token is malformed');
  return error instanceof Error ? error : new Error(String(error));
}
