import type { TokenError } from './token-error.js';

/** A refused request, ready to send: `new Response(denial.body, denial)` in a fetch handler. */
export interface Denial {
  ok: false;
  /** 401 without or with a bad token, 403 for a missing scope, 400 for a malformed request, 503 when the authorization server could not be used, 500 for a bug. */
  status: number;
  /** `www-authenticate` (RFC 6750 §3, RFC 9449 §7.1) with, for an error, the JSON body's type. */
  headers: Record<string, string>;
  /** `{"error", "error_description"}` as JSON, or empty when the request had no token. */
  body: string;
}

/** What every challenge of a resource says, whatever went wrong. */
export interface ChallengeSettings {
  /** The absolute URL of the resource's RFC 9728 metadata. */
  resourceMetadata: string;
  /** Whether the Bearer scheme is accepted (not when every token must be DPoP-bound). */
  bearer: boolean;
  /** The algorithms of DPoP proofs, when the DPoP scheme is accepted. */
  dpopAlgorithms: readonly string[] | undefined;
}

const quoted = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;

/**
 * The answer to a request without a usable token: one challenge per accepted scheme, each with
 * `resource_metadata` (RFC 9728 §5.1) and the `scope` the route requires; the error, if any, on
 * the challenge of the scheme the request used (DPoP's when Bearer is not accepted).
 */
export function denial(
  settings: ChallengeSettings,
  scopes: readonly string[],
  error?: TokenError,
  scheme?: 'Bearer' | 'DPoP',
): Denial {
  const onDpop =
    error?.code === 'invalid_dpop_proof' || scheme === 'DPoP' || (error && !settings.bearer);
  const challenges: string[] = [];
  const challenge = (name: 'Bearer' | 'DPoP', extra: [string, string][]) => {
    const params: [string, string][] = [];
    if (error && (name === 'DPoP') === Boolean(onDpop)) {
      params.push(['error', error.code], ['error_description', error.description]);
    }
    if (scopes.length > 0) params.push(['scope', scopes.join(' ')]);
    params.push(['resource_metadata', settings.resourceMetadata], ...extra);
    challenges.push(
      `${name} ${params.map(([key, value]) => `${key}=${quoted(value)}`).join(', ')}`,
    );
  };
  if (settings.bearer) challenge('Bearer', []);
  if (settings.dpopAlgorithms) challenge('DPoP', [['algs', settings.dpopAlgorithms.join(' ')]]);
  const headers: Record<string, string> = { 'www-authenticate': challenges.join(', ') };
  if (!error) return { ok: false, status: 401, headers, body: '' };
  headers['content-type'] = 'application/json';
  return {
    ok: false,
    status: error.status,
    headers,
    body: JSON.stringify({ error: error.code, error_description: error.description }),
  };
}

/** The answer when the authorization server could not be used (503) or the kit failed (500). */
export function failure(status: 500 | 503): Denial {
  const body =
    status === 503
      ? { error: 'temporarily_unavailable', error_description: 'the token cannot be checked now' }
      : { error: 'server_error', error_description: 'the token could not be checked' };
  return {
    ok: false,
    status,
    headers: {
      'content-type': 'application/json',
      ...(status === 503 ? { 'retry-after': '5' } : {}),
    },
    body: JSON.stringify(body),
  };
}
