import type { RequestedClaims } from '../authorization/claims-request.js';

/**
 * What a user authorized for one client in one authorization: carried from the authorization
 * request through the code into every token of the grant. `grantId` groups the code, the access
 * tokens and the refresh tokens in the store, so a replayed code or refresh token can revoke them
 * all at once (RFC 6749 §4.1.2, RFC 9700 §4.14).
 */
export interface TokenFamily {
  grantId: string;
  realm: string;
  sub: string;
  clientId: string;
  scopes: string[];
  /** The Protected Resource URI the tokens are for (RFC 8707), if one was requested. */
  resource?: string;
  /** Seconds since the epoch when the user last actively authenticated. */
  authTime: number;
  acr?: string;
  amr?: string[];
  /**
   * Claims the client asked for by name (OIDC Core 1.0 §5.5) and the user agreed to release,
   * beyond those of `scopes`; `acr` in `id_token` asks for the acr claim.
   */
  claims?: RequestedClaims;
  /** The public session id (`sid` claim) of the browser session the grant came from. */
  sid?: string;
}
