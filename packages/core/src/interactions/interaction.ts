import type { AuthorizationRequest } from '../authorization/request.js';

export const INTERACTION_NAMESPACE = 'interaction';

/** What the host application is asked to do: sign the user in, or ask for consent. */
export type InteractionPrompt = 'login' | 'consent';

/** What the host's login or consent page needs to know; handed out by `provider.interactions.details`. */
export interface InteractionDetails {
  id: string;
  realm: string;
  prompt: InteractionPrompt;
  client: { id: string; name?: string };
  /** The scopes the client asks for; a consent result may grant fewer. */
  scopes: string[];
  resource?: string;
  /** The `prompt` values of the request (`login`, `consent`). */
  requestedPrompt: string[];
  maxAge?: number;
  acrValues?: string[];
  uiLocales?: string[];
  loginHint?: string;
  /** For consent: the signed-in user it is asked of. */
  sub?: string;
}

export interface LoginResult {
  sub: string;
  /** Seconds since the epoch; defaults to now. */
  authTime?: number;
  amr?: string[];
  acr?: string;
}

export interface ConsentResult {
  /** The scopes the user granted; a subset of the requested ones. */
  scopes: string[];
}

/** How the host finishes an interaction. */
export type InteractionResult =
  | { login: LoginResult; consent?: ConsentResult }
  | { consent: ConsentResult }
  | { error: 'access_denied' | 'login_required'; error_description?: string };

/** The stored interaction; `result` is written by `finish`, read once by the resume endpoint. */
export interface InteractionRecord {
  id: string;
  realm: string;
  prompt: InteractionPrompt;
  request: AuthorizationRequest;
  /** Digest of the browser-binding cookie set when the interaction started. */
  browserBinding: string;
  /** The user already signed in this authorization (set when consent follows a login). */
  sub?: string;
  /** Whether this authorization already went through a login (so prompt=login is satisfied). */
  loggedIn?: boolean;
  result?: InteractionResult;
}
