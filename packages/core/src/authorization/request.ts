import type { RESPONSE_MODES, RESPONSE_TYPES } from '../config/client.js';
import type { RequestedClaims } from './claims-request.js';

export type ResponseType = (typeof RESPONSE_TYPES)[number];
export type ResponseMode = (typeof RESPONSE_MODES)[number];
export type Prompt = 'login' | 'consent' | 'none';

/** An authorization request that passed every check of docs/interface.md §4.1 and §7. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scopes: string[];
  state?: string;
  nonce?: string;
  /** S256 code challenge (RFC 7636). */
  codeChallenge?: string;
  /** The DPoP key the code is bound to (RFC 9449 §10). */
  dpopJkt?: string;
  prompt: Prompt[];
  maxAge?: number;
  resource?: string;
  uiLocales?: string[];
  acrValues?: string[];
  loginHint?: string;
  /** Claims asked for by name (the `claims` parameter; `acr` for `acr_values` too). */
  claims?: RequestedClaims;
  /** Scopes the user must consent to for those claims only: they are not granted as scopes. */
  claimScopes?: string[];
  /** Authentication context classes of which the session's must be one (an essential `acr`). */
  requiredAcr?: string[];
  /** The only user who may be signed in: an id_token_hint's, or a `sub` requested with a value. */
  expectedSub?: string;
  /** The user a verified id_token_hint names; unlike a requested `sub`, no stranger chose it. */
  hintedSub?: string;
  /**
   * Set when the user approves a device's request (RFC 8628) in this browser rather than a
   * client's redirect: the request's store id (never its device_code) and the user code the
   * user typed. `redirectUri` is then the verification page, where the browser ends up.
   */
  device?: { requestId: string; userCode: string };
}

/** Everything the user consents to: the requested scopes, and those only some claims need. */
export const consentScopes = (request: AuthorizationRequest): string[] =>
  request.claimScopes ? [...request.scopes, ...request.claimScopes] : [...request.scopes];
