import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { condition, fail } from '../support/checks.js';
import type { FlowState, Jwt } from '../support/state.js';
import {
  checkUpdatedAt,
  SCOPE_CLAIMS,
  validateStandardClaims,
  verifyScopeClaims,
} from './claims.js';

/** The ID token conditions of the suite's PerformStandardIdTokenChecks and the modules. */

const SKEW_MS = 5 * 60_000;

function idToken(state: FlowState): Jwt {
  if (!state.idToken) fail('no ID token');
  return state.idToken;
}

const seconds = (value: unknown, name: string): number => {
  if (typeof value !== 'number') fail(`'${name}' claim missing or not a number`);
  return value;
};

export const ValidateIdToken = condition('ValidateIdToken', (state: FlowState) => {
  const { claims } = idToken(state);
  if (claims.iss !== state.server.issuer) fail(`issuer mismatch: ${String(claims.iss)}`);
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (aud === undefined || !audiences.includes(state.client.id)) fail("'aud' is not our client");
  const exp = seconds(claims.exp, 'exp') * 1000;
  if (exp < state.now - SKEW_MS) fail('token expired');
  if (exp > state.now + 50 * 365 * 86_400_000) fail("'exp' is more than 50 years ahead");
  const iat = seconds(claims.iat, 'iat') * 1000;
  if (iat > state.now + SKEW_MS) fail("'iat' in the future");
  if (iat < state.now - SKEW_MS) fail("'iat' more than 5 minutes in the past");
  if (claims.auth_time !== undefined) {
    const authTime = seconds(claims.auth_time, 'auth_time') * 1000;
    if (authTime < state.now - 365 * 86_400_000) fail('auth_time over a year in the past');
    if (authTime > state.now + SKEW_MS) fail('auth_time in the future');
  }
  if (claims.acr === '') fail('acr is an empty string');
});

const NON_IDENTITY_CLAIMS = [
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
  'c_hash',
  'at_hash',
  's_hash',
  'jti',
  'nbf',
  'verified_claims',
];

/** ExtractIdentityClaimsFromIdToken: the ID token's claims but those only ID tokens have. */
export function idTokenIdentityClaims(state: FlowState): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(idToken(state).claims).filter(([name]) => !NON_IDENTITY_CLAIMS.includes(name)),
  );
}

export const ValidateIdTokenStandardClaims = condition(
  'ValidateIdTokenStandardClaims',
  (state: FlowState) => validateStandardClaims(idTokenIdentityClaims(state), 'id_token'),
);

export const ValidateIdTokenNonce = condition('ValidateIdTokenNonce', (state: FlowState) => {
  const nonce = idToken(state).claims.nonce;
  if (nonce !== state.nonce) fail(`nonce mismatch: ${String(nonce)}`);
});

export const ValidateIdTokenACRClaimAgainstRequest = condition(
  'ValidateIdTokenACRClaimAgainstRequest',
  (state: FlowState) => {
    const { acr } = idToken(state).claims;
    if (acr !== undefined && typeof acr !== 'string') fail('acr is not a string');
    const requested = (state.request.claims as { id_token?: { acr?: Record<string, unknown> } })
      ?.id_token?.acr;
    const values =
      (requested?.values as string[] | undefined) ??
      (requested?.value === undefined ? undefined : [requested.value as string]);
    if (!values) return;
    if (acr === undefined) fail('an acr was requested as a claim, none came back');
    if (!values.includes(acr as string)) fail(`acr ${String(acr)} is not one requested`);
  },
);

/** The key the header names (kid, kty, alg and use agreeing), as the suite selects it. */
function signingKey(token: Jwt, keys: readonly JWK[]): JWK {
  const { kid, alg } = token.header;
  const kty =
    typeof alg === 'string' && alg.startsWith('ES') ? 'EC' : alg === 'EdDSA' ? 'OKP' : 'RSA';
  const usable = keys.filter(
    (key) =>
      (kid === undefined || key.kid === kid) &&
      key.kty === kty &&
      (key.alg === undefined || key.alg === alg) &&
      (key.use === undefined || key.use === 'sig'),
  );
  if (usable.length === 0) fail(`no key in the JWKS matches kid ${String(kid)} and ${String(alg)}`);
  if (kid !== undefined && usable.length > 1) fail(`several keys match kid ${String(kid)}`);
  return usable[0] as JWK;
}

/** A JWS signature check with node:crypto, so conditions stay synchronous. */
export function verifySignature(token: Jwt, keys: readonly JWK[]): void {
  const alg = token.header.alg;
  if (typeof alg !== 'string' || alg === 'none') fail(`unsigned token (alg ${String(alg)})`);
  const key = createPublicKey({ key: signingKey(token, keys) as JsonWebKey, format: 'jwk' });
  const [header, payload, signature = ''] = token.value.split('.');
  const data = Buffer.from(`${header}.${payload}`);
  const sig = Buffer.from(signature, 'base64url');
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const ok = alg.startsWith('PS')
    ? verify(hash, data, { key, padding: 6, saltLength: 32 }, sig)
    : verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  if (!ok) fail('the signature does not verify with the server key');
}

export const ValidateIdTokenSignature = condition('ValidateIdTokenSignature', (state: FlowState) =>
  verifySignature(idToken(state), state.serverJwks.keys),
);

export const CheckForSubjectInIdToken = condition(
  'CheckForSubjectInIdToken',
  (state: FlowState) => {
    const { sub } = idToken(state).claims;
    if (typeof sub !== 'string' || sub === '') fail('no sub');
    if (sub.length > 255) fail('sub longer than 255 characters');
    if (!/^[\x20-\x7e]+$/.test(sub)) fail('sub has characters outside printable ASCII');
  },
);

export const EnsureIdTokenUpdatedAtValid = condition(
  'EnsureIdTokenUpdatedAtValid',
  (state: FlowState) => checkUpdatedAt(idToken(state).claims.updated_at, state.now, 'id_token'),
);

/** OIDC Core §3.3.2.11: the left half of the hash of the signing algorithm, base64url. */
export function leftHalfHash(alg: unknown, value: string): string {
  const bits = alg === 'EdDSA' ? '512' : String(alg).slice(2);
  if (!['256', '384', '512'].includes(bits)) fail(`no hash for ${String(alg)}`);
  const digest = createHash(`sha${bits}`).update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** ExtractAtHash / ExtractCHash: the claim is there. */
export const extractHash = (claim: 'at_hash' | 'c_hash') =>
  condition(claim === 'at_hash' ? 'ExtractAtHash' : 'ExtractCHash', (state: FlowState) => {
    if (typeof idToken(state).claims[claim] !== 'string') fail(`no ${claim} in the ID token`);
  });

/** ValidateAtHash / ValidateCHash, when the claim is there. */
export const validateHash = (claim: 'at_hash' | 'c_hash') =>
  condition(claim === 'at_hash' ? 'ValidateAtHash' : 'ValidateCHash', (state: FlowState) => {
    const token = idToken(state);
    const hashed = claim === 'at_hash' ? state.accessToken : state.response.code;
    if (hashed === undefined) fail(`nothing to check ${claim} against`);
    if (token.claims[claim] !== leftHalfHash(token.header.alg, hashed)) fail(`wrong ${claim}`);
  });

const absentClaim = (name: string, claim: string) =>
  condition(name, (state: FlowState) => {
    if (idToken(state).claims[claim] !== undefined) fail(`unrequested ${claim} in the ID token`);
  });

export const EnsureIdTokenDoesNotContainName = absentClaim(
  'EnsureIdTokenDoesNotContainName',
  'name',
);
export const EnsureIdTokenDoesNotContainEmailForScopeEmail = absentClaim(
  'EnsureIdTokenDoesNotContainEmailForScopeEmail',
  'email',
);

export const EnsureIdTokenContainsName = condition(
  'EnsureIdTokenContainsName',
  (state: FlowState) => {
    if (idToken(state).claims.name === undefined) fail('no name in the ID token');
  },
);

const ALWAYS_ALLOWED = [
  ...['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'azp'],
  ...['at_hash', 'c_hash', 's_hash', 'nbf', 'jti', 'sid', 'txn'],
];

export const EnsureIdTokenDoesNotContainNonRequestedClaims = condition(
  'EnsureIdTokenDoesNotContainNonRequestedClaims',
  (state: FlowState) => {
    const scopes = String(state.request.scope ?? '').split(' ');
    const allowed = new Set([
      ...ALWAYS_ALLOWED,
      ...(scopes.includes('openid') ? scopes.flatMap((scope) => SCOPE_CLAIMS[scope] ?? []) : []),
    ]);
    const extra = Object.keys(idToken(state).claims).filter((name) => !allowed.has(name));
    if (extra.length > 0) fail(`non-requested claims in the ID token: ${extra.join(', ')}`);
  },
);

export const EnsureIdTokenContainsKid = condition(
  'EnsureIdTokenContainsKid',
  (state: FlowState) => {
    if (!idToken(state).header.kid) fail('no kid in the ID token header');
  },
);

export const EnsureIdTokenSignatureIsRS256 = condition(
  'EnsureIdTokenSignatureIsRS256',
  (state: FlowState) => {
    if (idToken(state).header.alg !== 'RS256') fail(`alg is ${String(idToken(state).header.alg)}`);
  },
);

export const ValidateIdTokenACRClaimAgainstAcrValuesRequest = condition(
  'ValidateIdTokenACRClaimAgainstAcrValuesRequest',
  (state: FlowState) => {
    const { acr } = idToken(state).claims;
    if (acr === undefined) fail('acr_values were sent, no acr came back');
    if (typeof acr !== 'string') fail('acr is not a string');
    if (!String(state.request.acr_values).split(' ').includes(acr))
      fail(`acr ${acr} not requested`);
  },
);

export const VerifyScopesReturnedInAuthorizationEndpointIdToken = condition(
  'VerifyScopesReturnedInAuthorizationEndpointIdToken',
  (state: FlowState) => {
    if (!state.authorizationIdToken) fail('no ID token from the authorization endpoint');
    verifyScopeClaims(
      state.authorizationIdToken.claims,
      String(state.request.scope),
      'the ID token',
    );
  },
);
