import { scopeReleasing } from '../accounts/claims.js';
import type { Client } from '../realms/realm.js';
import { redirected } from './authorization-error.js';
import type { AuthorizationRequest } from './request.js';

/** The claims an authorization asked for by name, beyond what its scopes release. */
export interface RequestedClaims {
  /** For userinfo (and for the ID token when no access token is issued). */
  userinfo: string[];
  /** For the ID token; `acr` asks for the authentication context class. */
  id_token: string[];
}

/** What a `claims` request parameter (OIDC Core 1.0 §5.5) asks of the authorization. */
export interface ClaimsParameter {
  claims: RequestedClaims;
  /** `acr` as an essential ID token claim with `value` or `values`: the classes that will do. */
  requiredAcr?: string[];
  /** `sub` as an ID token claim with a `value`: only that user may be signed in. */
  expectedSub?: string;
}

const TARGETS = ['userinfo', 'id_token'] as const;
/** More names than any client has a use for; a bound on what an interaction record holds. */
const MAX_CLAIMS_PER_TARGET = 64;

const invalid = () =>
  redirected(
    'invalid_request',
    'claims must be a JSON object whose userinfo and id_token members map claim names to null or to an object',
  );

/**
 * Reads a `claims` parameter. Only the claims the client could receive at all are kept: those a
 * scope assigned to it releases, and `acr` for the ID token. Other names are ignored, as OIDC
 * Core §5.5 allows; requested values of ordinary claims are not checked (the claim is returned
 * as the host holds it). A value that is not a claims request is `invalid_request`.
 */
export function parseClaimsParameter(value: string, client: Client): ClaimsParameter {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid();
  }
  if (!isObject(parsed)) throw invalid();
  const result: ClaimsParameter = { claims: { userinfo: [], id_token: [] } };
  for (const target of TARGETS) {
    const requests = parsed[target];
    if (requests === undefined || requests === null) continue;
    if (!isObject(requests)) throw invalid();
    const entries = Object.entries(requests);
    if (entries.length > MAX_CLAIMS_PER_TARGET) throw invalid();
    for (const [name, request] of entries) {
      if (request !== null && !isClaimRequest(request)) throw invalid();
      if (target === 'id_token' && name === 'sub' && typeof request?.value === 'string') {
        result.expectedSub = request.value;
      }
      if (target === 'id_token' && name === 'acr') {
        result.claims.id_token.push('acr');
        const required = request?.essential === true ? acrValuesOf(request) : undefined;
        if (required) result.requiredAcr = required;
      } else if (scopeReleasing(name, client.scopes) !== undefined) {
        result.claims[target].push(name);
      }
    }
  }
  return result;
}

/**
 * The `claims` parameter (OIDC Core 1.0 §5.5) and `acr_values`, which asks for the `acr` claim
 * as well (§3.1.2.1). Only an OpenID request has an ID token or userinfo to put claims in.
 */
export function requestedClaims(
  value: string | undefined,
  client: Client,
  scopes: readonly string[],
  acrValues: readonly string[] | undefined,
): Pick<AuthorizationRequest, 'claims' | 'claimScopes' | 'requiredAcr' | 'expectedSub'> {
  if (!scopes.includes('openid')) return {};
  const parameter: ClaimsParameter =
    value === undefined
      ? { claims: { userinfo: [], id_token: [] } }
      : parseClaimsParameter(value, client);
  const { claims, requiredAcr, expectedSub } = parameter;
  if (acrValues && !claims.id_token.includes('acr')) claims.id_token.push('acr');
  const asked = claims.userinfo.length > 0 || claims.id_token.length > 0;
  const claimScopes = asked ? scopesForClaims(claims, scopes, client) : [];
  return {
    ...(asked ? { claims } : {}),
    ...(claimScopes.length === 0 ? {} : { claimScopes }),
    ...(requiredAcr === undefined ? {} : { requiredAcr }),
    ...(expectedSub === undefined ? {} : { expectedSub }),
  };
}

/** The scopes that release `claims` and are not among `scopes`: what consent must also cover. */
export function scopesForClaims(
  claims: RequestedClaims,
  scopes: readonly string[],
  client: Client,
): string[] {
  const extra = new Set<string>();
  for (const name of [...claims.userinfo, ...claims.id_token]) {
    const scope = scopeReleasing(name, client.scopes);
    if (scope !== undefined && !scopes.includes(scope)) extra.add(scope);
  }
  return [...extra];
}

function acrValuesOf(request: { value?: unknown; values?: unknown }): string[] | undefined {
  const values = request.values ?? (request.value === undefined ? undefined : [request.value]);
  if (!Array.isArray(values)) return undefined;
  const strings = values.filter((each): each is string => typeof each === 'string');
  return strings.length > 0 ? strings : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isClaimRequest(
  value: unknown,
): value is { essential?: boolean; value?: unknown; values?: unknown[] } {
  return (
    isObject(value) &&
    (value.essential === undefined || typeof value.essential === 'boolean') &&
    (value.values === undefined || Array.isArray(value.values))
  );
}
