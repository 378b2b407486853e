import type { JWTPayload } from 'jose';
import { TokenError } from './token-error.js';

/** The claims of a verified token: its JWT payload, or the introspection answer (RFC 7662 §2.2). */
export interface AccessTokenClaims extends JWTPayload {
  /** Space-separated scopes (RFC 9068 §2.2.3, RFC 7662 §2.2). */
  scope?: string;
  client_id?: string;
  /** The key the token is bound to (RFC 7800); `jkt` for DPoP (RFC 9449 §6). */
  cnf?: { jkt?: string; [member: string]: unknown };
  [claim: string]: unknown;
}

/** A verified access token, as the route handler receives it. */
export interface AccessToken {
  /** `jwt`: verified here with the issuer's keys; `introspection`: the issuer said it is active. */
  verifiedBy: 'jwt' | 'introspection';
  claims: Readonly<AccessTokenClaims>;
  /** The token's scopes, from its `scope` claim. */
  scopes: readonly string[];
  /** The JWK thumbprint of the DPoP key the token is bound to, whose proof came with it. */
  dpopJkt?: string;
}

/** The AccessToken of verified claims; refuses a `scope` or `cnf` of the wrong type. */
export function accessTokenOf(
  claims: AccessTokenClaims,
  verifiedBy: AccessToken['verifiedBy'],
): AccessToken {
  const { scope, cnf } = claims;
  if (scope !== undefined && typeof scope !== 'string') {
    throw new TokenError('invalid_token', 'the token has a malformed scope claim');
  }
  const jkt = cnf?.jkt;
  if (cnf !== undefined && (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf))) {
    throw new TokenError('invalid_token', 'the token has a malformed cnf claim');
  }
  if (jkt !== undefined && typeof jkt !== 'string') {
    throw new TokenError('invalid_token', 'the token has a malformed cnf claim');
  }
  return {
    verifiedBy,
    claims,
    scopes: scope ? scope.split(' ').filter((name) => name !== '') : [],
    ...(jkt === undefined ? {} : { dpopJkt: jkt }),
  };
}

/** 403 insufficient_scope (RFC 6750 §3.1) unless the token has every scope required. */
export function checkScopes(token: AccessToken, required: readonly string[]): void {
  if (required.every((scope) => token.scopes.includes(scope))) return;
  throw new TokenError('insufficient_scope', 'the token lacks a scope this request needs');
}
