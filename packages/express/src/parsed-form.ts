import {
  type GatehouseResponse,
  OAuthError,
  oauthErrorResponse,
} from '@gatehouse-oidc/core/adapter';

/**
 * Rebuilds the pairs of a form that `express.urlencoded` (qs) already parsed. qs turns a repeated
 * name into an array of two or more strings, which becomes repeated pairs again so the core still
 * rejects it. Everything else — an array of one (`a[]=x`), a nested object (`a[b]=x`, from
 * `extended: true`) — has lost its wire form and is refused rather than guessed.
 *
 * What qs cannot give back: names it drops (`__proto__`, empty names), the raw text of malformed
 * percent-encoding or invalid UTF-8 (kept as literal text), and the position of integer-like
 * names (JavaScript lists them first). Mount Gatehouse before the parser to keep all of that.
 */
export function formFromParsedBody(parsed: unknown): Array<[string, string]> | undefined {
  if (!isPlainObject(parsed)) return undefined;
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') {
      pairs.push([name, value]);
    } else if (
      Array.isArray(value) &&
      value.length > 1 &&
      value.every((v) => typeof v === 'string')
    ) {
      for (const item of value) pairs.push([name, item]);
    } else {
      return undefined;
    }
  }
  return pairs;
}

/** 400 invalid_request for a body Gatehouse cannot read as it was sent. */
export function bodyUnavailableResponse(reason: string): GatehouseResponse {
  return oauthErrorResponse(
    new OAuthError(
      'invalid_request',
      `the request body ${reason}; mount Gatehouse before body parsers`,
    ),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
