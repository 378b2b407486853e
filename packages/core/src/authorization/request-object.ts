import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { HMAC_ALGORITHMS } from '../config/client.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import { type Params, paramsFromPairs } from '../http/form.js';
import { firstUseOfJti } from '../jwt/jti-replay.js';
import { verifyJwt } from '../jwt/verify-jwt.js';
import type { Client } from '../realms/realm.js';

const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * A request object lives as long as it takes to send a browser: FAPI 2.0 Message Signing
 * (§5.3.2.1) asks for `exp` at most an hour after `nbf`, and here at most an hour from now too.
 */
const MAX_LIFETIME_SECONDS = 3600;
/** An identifier, not a payload: beyond this a `jti` is refused rather than stored. */
const MAX_JTI_CHARS = 256;
const JTI_NAMESPACE = 'request_object_jti';
const HMAC = new Set<string>(HMAC_ALGORITHMS);
/** JWT claims of the object itself, not parameters of the request it carries. */
const ENVELOPE = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);

const invalid = (description: string) => new OAuthError('invalid_request_object', description);

/**
 * RFC 9101 §6: verifies a signed request object of `client` — an algorithm the realm allows
 * (never `none`), the client's registered keys (or its secret for HS*), `iss` the client, `aud`
 * the issuer, `exp` required and near (and at most an hour after `nbf`), `nbf` and `iat` not in
 * the future, a `jti` used once (§10.8) — and returns the request's parameters, which are the
 * object's alone (§5). Failures are invalid_request_object.
 */
export async function verifyRequestObject(
  context: RealmContext,
  client: Client,
  object: string,
): Promise<Params> {
  const algorithms = context.realm.config.request_object_signing_alg_values_supported;
  let payload: JWTPayload;
  try {
    const options = {
      algorithms: [...algorithms],
      issuer: client.id,
      audience: context.realm.issuer,
      requiredClaims: ['exp'],
      currentDate: new Date(context.now()),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    };
    const key = keyFor(client, context, object);
    payload = (
      key instanceof Uint8Array
        ? await jwtVerify(object, key, options)
        : await verifyJwt(context.verifier, object, key, options)
    ).payload;
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    if (error instanceof errors.JOSEError) throw invalid(reason(error));
    throw invalid('the client keys could not be used');
  }
  checkLifetime(payload, nowSeconds(context));
  if (payload.client_id !== undefined && payload.client_id !== client.id) {
    throw invalid('client_id in the request object is not the client_id of the request');
  }
  await checkFirstUse(context, client, payload);
  return paramsOf(payload, client);
}

/** `exp` within the hour, from now and from `nbf`; `iat` not ahead of the clock. */
function checkLifetime(payload: JWTPayload, now: number): void {
  const exp = payload.exp ?? 0;
  if (exp > now + MAX_LIFETIME_SECONDS) {
    throw invalid(`the request object must expire within ${MAX_LIFETIME_SECONDS} seconds`);
  }
  if (payload.nbf !== undefined && exp - payload.nbf > MAX_LIFETIME_SECONDS) {
    throw invalid(`the request object must expire within ${MAX_LIFETIME_SECONDS} seconds of nbf`);
  }
  if (payload.iat !== undefined && payload.iat > now + CLOCK_TOLERANCE_SECONDS) {
    throw invalid('the request object was issued in the future');
  }
}

/**
 * A request object with a `jti` is accepted once (RFC 9101 §10.8), across every instance sharing
 * the store, for as long as it could otherwise be accepted; one without is not tracked.
 */
async function checkFirstUse(
  context: RealmContext,
  client: Client,
  payload: JWTPayload,
): Promise<void> {
  const { jti } = payload;
  if (jti === undefined) return;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_CHARS) {
    throw invalid('the request object jti is malformed');
  }
  const exp = payload.exp ?? 0;
  if (
    !(await firstUseOfJti(context, JTI_NAMESPACE, client.id, jti, exp, CLOCK_TOLERANCE_SECONDS))
  ) {
    throw invalid('the request object was used before');
  }
}

/** The keys the object's `alg` calls for: the client secret for HS*, else its public keys. */
function keyFor(client: Client, context: RealmContext, object: string) {
  const alg = headerAlg(object);
  if (alg !== undefined && HMAC.has(alg)) {
    const secret = client.config.client_secret;
    if (secret === undefined) throw invalid('this client has no secret to sign with HS*');
    return new TextEncoder().encode(secret);
  }
  const keys = client.publicKeys;
  if (keys === undefined) throw invalid('this client has no registered keys');
  return typeof keys === 'function'
    ? keys
    : context.remoteKeySets.keyFor(context.realm.name, { kind: 'client', id: client.id }, keys);
}

function headerAlg(object: string): string | undefined {
  try {
    return decodeProtectedHeader(object).alg;
  } catch {
    throw invalid('the request object is not a JWS');
  }
}

/** Every member but the JWT's own claims, strings as they are and the rest (claims, max_age) as JSON. */
function paramsOf(payload: JWTPayload, client: Client): Params {
  const pairs: Array<[string, string]> = [['client_id', client.id]];
  for (const [name, value] of Object.entries(payload)) {
    if (ENVELOPE.has(name) || name === 'client_id' || value === undefined || value === null)
      continue;
    pairs.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return paramsFromPairs(pairs);
}

const CLAIM_PROBLEMS = new Map([
  ['iss', 'the request object was not issued by this client'],
  ['aud', 'the request object is not meant for this issuer'],
  ['nbf', 'the request object is not valid yet'],
  ['exp', 'the request object must carry exp'],
]);

function reason(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return 'the request object has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return CLAIM_PROBLEMS.get(error.claim) ?? 'the request object claims are not valid';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return 'the request object is signed with an algorithm this realm does not allow';
  }
  return 'the request object is not signed by this client';
}
