import { decodeJwt } from 'jose';
import { OAuthError } from '../errors/oauth-error.js';
import { decodeFormComponent, decodeUtf8, type Params } from '../http/form.js';
import type { GatehouseRequest } from '../http/types.js';
import { clientAuthenticationFailed } from './failure.js';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** What the request offers as client credentials, before anything is checked against a client. */
export type PresentedCredentials =
  | { kind: 'basic'; clientId: string; secret: string }
  | { kind: 'post'; clientId: string; secret: string }
  | { kind: 'assertion'; clientId: string; assertion: string }
  | { kind: 'none'; clientId: string };

/**
 * Reads the client credentials of a request (RFC 6749 §2.3, RFC 7523 §2.2). Exactly one way of
 * authenticating may be used; a `client_id` parameter beside it must name the same client.
 */
export function presentedCredentials(
  request: GatehouseRequest,
  params: Params,
): PresentedCredentials {
  const basic = readBasic(request.headers.authorization);
  const secret = params.get('client_secret');
  const assertion = params.get('client_assertion');
  const assertionType = params.get('client_assertion_type');
  const bodyClientId = params.get('client_id');

  if ([basic, secret, assertion].filter((v) => v !== undefined).length > 1) {
    throw new OAuthError('invalid_request', 'use exactly one client authentication method');
  }
  if ((assertion === undefined) !== (assertionType === undefined)) {
    throw new OAuthError(
      'invalid_request',
      'client_assertion and client_assertion_type go together',
    );
  }
  if (assertionType !== undefined && assertionType !== JWT_BEARER_ASSERTION) {
    throw new OAuthError(
      'invalid_request',
      `client_assertion_type must be ${JWT_BEARER_ASSERTION}`,
    );
  }

  const presented = ((): PresentedCredentials => {
    if (basic) return { kind: 'basic', ...basic };
    if (assertion !== undefined)
      return { kind: 'assertion', clientId: assertionSubject(assertion), assertion };
    if (bodyClientId === undefined) throw clientAuthenticationFailed('post');
    if (secret !== undefined) return { kind: 'post', clientId: bodyClientId, secret };
    return { kind: 'none', clientId: bodyClientId };
  })();
  if (bodyClientId !== undefined && bodyClientId !== presented.clientId) {
    throw clientAuthenticationFailed(presented.kind);
  }
  return presented;
}

/** RFC 6749 §2.3.1: both halves are form-urlencoded before base64. */
function readBasic(header: string | undefined): { clientId: string; secret: string } | undefined {
  const match = header === undefined ? null : /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (header !== undefined && /^basic\b/i.test(header) && !match)
    throw clientAuthenticationFailed('basic');
  if (!match?.[1]) return undefined;
  try {
    const decoded = decodeUtf8(Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)));
    const colon = decoded.indexOf(':');
    if (colon < 1) throw new Error('no client_id');
    return {
      clientId: decodeFormComponent(decoded.slice(0, colon)),
      secret: decodeFormComponent(decoded.slice(colon + 1)),
    };
  } catch (cause) {
    throw clientAuthenticationFailed('basic', cause);
  }
}

/** The client an assertion claims to come from (RFC 7523: `sub`), read before verification. */
function assertionSubject(assertion: string): string {
  let sub: unknown;
  try {
    sub = decodeJwt(assertion).sub;
  } catch (cause) {
    throw new OAuthError('invalid_client', 'client_assertion is not a valid JWT', { cause });
  }
  if (typeof sub !== 'string' || sub === '') throw clientAuthenticationFailed('assertion');
  return sub;
}
