import { z } from 'zod';

/**
 * Control, format (bidirectional overrides, zero-width) and line-separator characters: refused
 * in a client_name an outsider wrote, which the consent page shows.
 */
export const UNSAFE_NAME_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** RFC 6749 §3.3 scope-token. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export const scopeToken = z
  .string()
  .regex(SCOPE_TOKEN, 'must be a scope token (printable ASCII, no spaces, quotes or backslashes)');

/** A space-separated scope string as clients send it. */
export const scopeString = z
  .string()
  .refine(
    (value) => value.split(' ').every((token) => SCOPE_TOKEN.test(token)),
    'must be space-separated scope tokens',
  );

export const absoluteUrl = z.string().refine(isAbsoluteUrl, 'must be an absolute URL');

/** Schemes a browser would run or read locally instead of navigating to an application. */
const SCRIPT_SCHEMES = /^(javascript|data|vbscript|file|blob):/i;

/** Redirect URIs: absolute, without a fragment (RFC 6749 §3.1.2), never a script or local URL. */
export const redirectUri = z
  .string()
  .refine(isAbsoluteUrl, 'must be an absolute URL')
  .refine((value) => !value.includes('#'), 'must not contain a fragment')
  .refine(
    (value) => !SCRIPT_SCHEMES.test(value),
    'must not be a javascript:, data:, vbscript:, file: or blob: URL',
  );

/**
 * A URL the provider calls or a browser loads on a client's behalf: TLS, or plain http only on
 * this machine (development); no fragment.
 */
export const httpsOrLoopbackUrl = z
  .string()
  .refine(isAbsoluteUrl, 'must be an absolute URL')
  .refine((value) => !value.includes('#'), 'must not contain a fragment')
  // An unparsable URL: said above.
  .refine(
    (value) => !URL.canParse(value) || isHttpsOrLoopback(value),
    'must be an https URL (http only on localhost)',
  );

/** A URL the provider calls where TLS is required even in development: https, no fragment. */
export const httpsUrl = z
  .string()
  .refine(isAbsoluteUrl, 'must be an absolute URL')
  .refine((value) => !value.includes('#'), 'must not contain a fragment')
  .refine((value) => !URL.canParse(value) || new URL(value).protocol === 'https:', 'must be https');

/** A web origin as browsers send it in `Origin`: `scheme://host[:port]`, nothing more. */
export const webOrigin = z
  .string()
  .refine(
    (value) => isHttpUrl(value) && new URL(value).origin === value,
    'must be an origin: http(s)://host[:port] in lower case, without a path or a trailing slash',
  );

/** A public origin plus optional path: where Gatehouse is reachable from outside. */
export const baseUrl = z
  .string()
  .refine(isHttpUrl, 'must be an absolute http(s) URL')
  .refine((value) => !/[?#]/.test(value), 'must not contain a query or a fragment')
  .transform((value) => value.replace(/\/+$/, ''));

export const positiveSeconds = (fallback: number, max: number) =>
  z.number().int('must be a whole number of seconds').min(1).max(max).default(fallback);

/** https, or plain http to this machine only (development). */
export function isHttpsOrLoopback(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))
  );
}

/** Whether a URL's hostname is this machine: `localhost`, `127.0.0.1` or `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

export function splitScope(scope: string): string[] {
  return scope.split(' ').filter((token) => token !== '');
}

function isAbsoluteUrl(value: string): boolean {
  return URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value);
}

function isHttpUrl(value: string): boolean {
  return isAbsoluteUrl(value) && /^https?:$/.test(new URL(value).protocol);
}
