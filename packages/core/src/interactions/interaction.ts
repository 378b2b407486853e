import type { AuthorizationRequest } from '../authorization/request.js';

export const INTERACTION_NAMESPACE = 'interaction';

/** What the host application is asked to do: sign the user in, or ask for consent. */
export type InteractionPrompt = 'login' | 'consent';

/** What the host's login or consent page needs to know; handed out by `provider.interactions.details`. */
export interface InteractionDetails {
  id: string;
  realm: string;
  prompt: InteractionPrompt;
  client: {
    id: string;
    /** Its `client_name`; from a metadata document, whatever its author chose to write there. */
    name?: string;
    /**
     * Set for a client described by its metadata document (its client_id is the document's
     * URL), which nobody vouched for: where it sends the user back is what to show. `loopback`
     * says that host is only the user's own computer (`localhost`, `127.0.0.1`, `[::1]`).
     */
    metadataDocument?: { redirectHost: string; loopback: boolean };
  };
  /** Where the client gets the answer: one of its redirect URIs. */
  redirectUri: string;
  /**
   * The scopes the client asks for, and those whose claims it asks for by name (the `claims`
   * parameter); a consent result may grant fewer.
   */
  scopes: string[];
  resource?: string;
  /** The `prompt` values of the request (`login`, `consent`). */
  requestedPrompt: string[];
  maxAge?: number;
  /** Authentication context classes asked for (acr_values, and an essential `acr` claim's values). */
  acrValues?: string[];
  uiLocales?: string[];
  loginHint?: string;
  /**
   * The only user the client accepts (its id_token_hint, or a `sub` it requested with a value):
   * a login result naming anyone else ends the authorization with login_required.
   */
  expectedSub?: string;
  /**
   * The user a verified id_token_hint names, whose username a login page may fill in. Never show
   * who `expectedSub` is instead: anyone may set it with a `claims` parameter, and the page would
   * tell them that user's login name and which `sub` values exist.
   */
  hintedSub?: string;
  /** For consent: the signed-in user it is asked of. */
  sub?: string;
  /**
   * Set when the user approves a device's request (RFC 8628): the user code they typed, shown as
   * `XXXX-XXXX` so they can check it is the one their device shows. The answer goes to the
   * device, not to `redirectUri`.
   */
  device?: { userCode: string };
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
  /** Whether the host's page has shown it (through `details`), which gives the user more time. */
  shown?: boolean;
  result?: InteractionResult;
}
