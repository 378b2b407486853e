import type { RESPONSE_TYPES } from '../config/client.js';

export type ResponseType = (typeof RESPONSE_TYPES)[number];
export type ResponseMode = 'query' | 'fragment';
export type Prompt = 'login' | 'consent' | 'none';

/** An authorization request that passed every check of interface §4.1 and §7. */
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
  prompt: Prompt[];
  maxAge?: number;
  resource?: string;
  uiLocales?: string[];
  acrValues?: string[];
  loginHint?: string;
}
