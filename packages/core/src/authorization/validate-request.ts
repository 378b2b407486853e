import { findClient } from '../client-metadata/find-client.js';
import { RESPONSE_MODES } from '../config/client.js';
import type { RealmContext } from '../context.js';
import { requestedDpopJkt } from '../dpop/jkt-parameter.js';
import type { RedirectedCode } from '../errors/codes.js';
import { OAuthError } from '../errors/oauth-error.js';
import { checkScopesCoverResource, requestedResource } from '../grant-types/resource.js';
import { requestedScopes } from '../grant-types/scope.js';
import type { Params } from '../http/form.js';
import type { Client, Realm } from '../realms/realm.js';
import { redirected, shownAtProvider } from './authorization-error.js';
import { requestedClaims } from './claims-request.js';
import type { ResponseTarget } from './redirect.js';
import { isRegisteredRedirectUri } from './redirect-uri-match.js';
import type { AuthorizationRequest, Prompt, ResponseMode, ResponseType } from './request.js';
import { responseModeInRequestObject } from './request-object-mode.js';
import {
  carriesTokens,
  defaultResponseMode,
  includesCode,
  includesIdToken,
  parseResponseType,
} from './response-type.js';

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_AGE = /^\d{1,9}$/;
/**
 * Longest accepted values of what is stored with an interaction, echoed back or verified: without bounds an
 * anonymous request could park tens of kilobytes in the store per interaction.
 */
const MAX_LENGTHS = new Map([
  ['state', 2048],
  ['nonce', 2048],
  ['login_hint', 512],
  ['ui_locales', 512],
  ['acr_values', 512],
  ['claims', 4096],
  ['id_token_hint', 8192],
]);
/**
 * The most an authorization request may take as stored (its JSON): what each of the bounded
 * number of interactions a realm keeps costs at worst. Escaped characters count as stored, so a
 * state of control characters cannot weigh six times its length.
 */
export const MAX_STORED_REQUEST_CHARS = 4096;
const PROMPTS = new Set<string>(['login', 'consent', 'none']);
const RESPONSE_MODE_NAMES = new Set<string>(RESPONSE_MODES);
/** OIDC Core 1.0 §6 and §7.2.1: features requested that Gatehouse does not offer. */
const UNSUPPORTED = new Map<string, RedirectedCode>([
  ['request', 'request_not_supported'],
  ['request_uri', 'request_uri_not_supported'],
  ['registration', 'registration_not_supported'],
]);

/** The client and where errors may be sent, once client_id and redirect_uri are trusted. */
export interface TrustedTarget {
  client: Client;
  target: ResponseTarget;
}

/**
 * docs/interface.md §7.1: until client_id names a client of the realm (configured, or described
 * by its metadata document) and redirect_uri is one of its registered URIs
 * (redirect-uri-match.ts: exact strings, a native client's loopback port aside) nothing may be
 * redirected.
 */
export async function trustedTarget(params: Params, context: RealmContext): Promise<TrustedTarget> {
  if (params.repeated.has('client_id') || params.repeated.has('redirect_uri')) {
    throw shownAtProvider('invalid_request', 'client_id or redirect_uri is repeated');
  }
  const clientId = params.get('client_id');
  const client = clientId === undefined ? undefined : await findClient(context, clientId);
  if (!client)
    throw shownAtProvider('invalid_client_id', 'client_id is not a client of this realm');
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined || !isRegisteredRedirectUri(client, redirectUri)) {
    throw shownAtProvider('invalid_redirect_uri', 'redirect_uri is not registered for this client');
  }
  const responseType = parseResponseType(params.get('response_type') ?? '');
  // Of a repeated state or response_mode, none of the values can be told to be the client's.
  const state = params.repeated.has('state') ? undefined : params.get('state');
  const echoState = state !== undefined && !tooLong(params, 'state');
  const responseMode = params.repeated.has('response_mode')
    ? undefined
    : (params.get('response_mode') ?? responseModeInRequestObject(params));
  return {
    client,
    target: {
      redirectUri,
      responseMode: errorResponseMode(responseMode, client, responseType),
      ...(echoState ? { state } : {}),
    },
  };
}

const tooLong = (params: Params, name: string) =>
  (params.get(name)?.length ?? 0) > (MAX_LENGTHS.get(name) ?? Number.POSITIVE_INFINITY);

/**
 * How errors reach the client: the requested mode if the client may use it, else the default of
 * the response type; never the query for a response type that carries tokens.
 */
function errorResponseMode(
  requested: string | undefined,
  client: Client,
  type: ResponseType | undefined,
): ResponseMode {
  const fallback = defaultResponseMode(type);
  const allowed = client.config.response_modes.find((mode) => mode === requested);
  if (allowed === undefined || allowed === 'query') return fallback;
  return allowed;
}

/**
 * Every remaining check of docs/interface.md §4.1 and §7.2, in the order a client would want to
 * hear about them. Each failure is redirected to the trusted target.
 */
export function validateRequest(
  params: Params,
  realm: Realm,
  { client, target }: TrustedTarget,
): AuthorizationRequest {
  if (params.repeated.size > 0) throw redirected('invalid_request', 'a parameter is repeated');
  for (const [name, code] of UNSUPPORTED) {
    if (params.has(name)) throw redirected(code, `the ${name} parameter is not supported`);
  }
  for (const [name, max] of MAX_LENGTHS) {
    if (tooLong(params, name))
      throw redirected('invalid_request', `${name} is longer than ${max} characters`);
  }
  const responseType = checkResponseType(params, client);
  const responseMode = checkResponseMode(params, client, responseType);
  const scopes = checkScopes(params, client, responseType);
  const resource = checkResource(params, realm, scopes);
  const codeChallenge = checkPkce(params, client, responseType);
  const dpopJkt = requestedDpopJkt(params);
  const nonce = params.get('nonce');
  if (includesIdToken(responseType) && nonce === undefined) {
    throw redirected('nonce_required', 'nonce is required when an id_token is returned');
  }
  const state = target.state;
  const maxAge = checkMaxAge(params);
  const uiLocales = spaceSeparated(params.get('ui_locales'));
  const acrValues = spaceSeparated(params.get('acr_values'));
  const loginHint = params.get('login_hint');
  const claims = requestedClaims(params.get('claims'), client, scopes, acrValues);
  const request: AuthorizationRequest = {
    clientId: client.id,
    redirectUri: target.redirectUri,
    responseType,
    responseMode,
    scopes,
    prompt: checkPrompt(params),
    ...(state === undefined ? {} : { state }),
    ...(nonce === undefined ? {} : { nonce }),
    ...(codeChallenge === undefined ? {} : { codeChallenge }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
    ...(resource === undefined ? {} : { resource }),
    ...(maxAge === undefined ? {} : { maxAge }),
    ...(uiLocales === undefined ? {} : { uiLocales }),
    ...(acrValues === undefined ? {} : { acrValues }),
    ...(loginHint === undefined ? {} : { loginHint }),
    ...claims,
  };
  if (JSON.stringify(request).length > MAX_STORED_REQUEST_CHARS) {
    throw redirected(
      'invalid_request',
      `the request is too large to keep: state, nonce and the other parameters take more than ${MAX_STORED_REQUEST_CHARS} characters together`,
    );
  }
  return request;
}

function checkResponseType(params: Params, client: Client): ResponseType {
  const value = params.get('response_type');
  if (value === undefined) throw redirected('invalid_request', 'response_type is required');
  const responseType = parseResponseType(value);
  if (responseType === undefined || !client.config.response_types.includes(responseType)) {
    throw redirected('invalid_response_type', 'response_type is not allowed for this client');
  }
  return responseType;
}

function checkResponseMode(params: Params, client: Client, type: ResponseType): ResponseMode {
  const requested = params.get('response_mode');
  if (requested === undefined) return defaultResponseMode(type);
  if (
    !RESPONSE_MODE_NAMES.has(requested) ||
    !client.config.response_modes.includes(requested as ResponseMode)
  ) {
    throw redirected('invalid_response_mode', 'response_mode is not allowed for this client');
  }
  if (requested === 'query' && carriesTokens(type)) {
    throw redirected('invalid_response_mode', 'tokens are never returned in the query string');
  }
  return requested as ResponseMode;
}

function checkScopes(params: Params, client: Client, type: ResponseType): string[] {
  const scopes = redirectedOnError(
    () => requestedScopes(params.get('scope'), client, client.defaultScopes),
    'invalid_scope',
  );
  if (scopes.length === 0) throw redirected('invalid_scope', 'no scope was requested');
  if (includesIdToken(type) && !scopes.includes('openid')) {
    throw redirected('invalid_scope', 'an id_token needs the openid scope');
  }
  return scopes;
}

/**
 * docs/interface.md §7.2 names invalid_request for an unknown resource and for scopes too narrow
 * for it.
 */
function checkResource(params: Params, realm: Realm, scopes: string[]): string | undefined {
  const uri = params.get('resource');
  if (uri === undefined) return undefined;
  redirectedOnError(
    () => checkScopesCoverResource(scopes, requestedResource(uri, realm)),
    'invalid_request',
  );
  return uri;
}

/** Runs a check shared with the token endpoint, sending its error to the client as `code`. */
function redirectedOnError<T>(check: () => T, code: RedirectedCode): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    throw redirected(code, error.description ?? error.code);
  }
}

/** RFC 7636 with S256 only; the challenge is required when the client enforces PKCE. */
function checkPkce(params: Params, client: Client, type: ResponseType): string | undefined {
  if (!includesCode(type)) return undefined;
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (challenge === undefined) {
    if (client.config.require_pkce || method !== undefined) {
      throw redirected('invalid_code_challenge', 'code_challenge is required');
    }
    return undefined;
  }
  if (method === undefined) {
    throw redirected('invalid_code_challenge_method', 'code_challenge_method is required');
  }
  if (method !== 'S256') {
    throw redirected(
      'invalid_code_challenge_method',
      'only the S256 code_challenge_method is supported',
    );
  }
  if (!S256_CHALLENGE.test(challenge)) {
    throw redirected('invalid_code_challenge', 'code_challenge must be a base64url SHA-256 hash');
  }
  return challenge;
}

function checkPrompt(params: Params): Prompt[] {
  const value = params.get('prompt');
  if (value === undefined) return [];
  const prompts = [...new Set(value.split(' '))];
  if (!prompts.every((prompt) => PROMPTS.has(prompt))) {
    throw redirected('invalid_request', 'prompt must be login, consent, login consent or none');
  }
  if (prompts.includes('none') && prompts.length > 1) {
    throw redirected('invalid_request', 'prompt=none cannot be combined with other values');
  }
  return prompts as Prompt[];
}

function checkMaxAge(params: Params): number | undefined {
  const value = params.get('max_age');
  if (value === undefined) return undefined;
  if (!MAX_AGE.test(value))
    throw redirected('invalid_request', 'max_age must be a number of seconds');
  return Number(value);
}

function spaceSeparated(value: string | undefined): string[] | undefined {
  const parts = value?.split(' ').filter((part) => part !== '');
  return parts && parts.length > 0 ? parts : undefined;
}
