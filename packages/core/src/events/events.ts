/**
 * What happened in a realm, as the provider tells the host (docs/telemetry.md). Events carry
 * identifiers only: never a secret, a token, a code, a password or a cookie. `sub` is the
 * user's identifier as the host's login result gave it; `sid` is the public session id of the
 * `sid` claim; `grantId` groups the tokens of one authorization (what revocation and reuse
 * detection act on); `jti` is an access token's identifier, never the token.
 */
export type GatehouseEvent =
  | SignInEvent
  | ConsentEvent
  | TokenIssuedEvent
  | ReuseDetectedEvent
  | TokenRevokedEvent
  | GrantRevokedEvent
  | ClientTokensRevokedEvent
  | LogoutEvent
  | SessionEndedEvent
  | BackchannelLogoutFailedEvent
  | CibaPingEvent
  | ClientAuthenticationFailedEvent
  | ClientRegistrationEvent;

/** The fields every event has. */
export interface EventBase {
  /** The realm's name. */
  realm: string;
  /** Milliseconds since the epoch, by the provider's clock (the `now` option). */
  time: number;
}

/** A user signed in through the host's login page: a session started or was renewed. */
export interface SignInEvent extends EventBase {
  type: 'sign_in';
  sub: string;
  sid: string;
  /** The client whose authorization request asked for the sign-in. */
  clientId: string;
  acr?: string;
  amr?: string[];
}

/** A user consented to a client's scopes on the host's consent page. */
export interface ConsentEvent extends EventBase {
  type: 'consent';
  sub: string;
  clientId: string;
  /** The scopes the user agreed to in this consent. */
  scopes: string[];
}

/** Tokens went to a client: one event per token response or front-channel answer. */
export interface TokenIssuedEvent extends EventBase {
  type: 'token_issued';
  /**
   * The token endpoint's `grant_type` (`authorization_code`, `refresh_token`,
   * `client_credentials`, the CIBA, token-exchange and jwt-bearer URNs), or `implicit` for tokens
   * the authorization endpoint returns.
   */
  grantType: string;
  clientId: string;
  /** The user; for client credentials the client itself. */
  sub: string;
  /** The session the grant came from, when there is one. */
  sid?: string;
  /** The authorization the tokens belong to; none for client credentials. */
  grantId?: string;
  /** The access token's `jti`, when an access token was issued. */
  jti?: string;
  /** Who acts for `sub`: the actor's `sub` of a delegated token (token exchange). */
  actor?: string;
  scopes: string[];
  /** Which tokens the answer held. */
  tokens: IssuedTokenType[];
}

export type IssuedTokenType = 'access_token' | 'refresh_token' | 'id_token';

/**
 * A refresh token or an authorization code was presented again after it was used: two parties
 * hold it, so the provider revoked every token of its grant (RFC 9700 §4.14, RFC 6749 §4.1.2).
 */
export interface ReuseDetectedEvent extends EventBase {
  type: 'reuse_detected';
  credential: 'refresh_token' | 'authorization_code';
  /** The client the credential was issued to. */
  clientId: string;
  sub: string;
  grantId: string;
  sid?: string;
}

/** A client revoked one of its tokens at the revocation endpoint (RFC 7009). */
export interface TokenRevokedEvent extends EventBase {
  type: 'token_revoked';
  /** A refresh token takes its whole grant with it. */
  tokenType: 'access_token' | 'refresh_token';
  clientId: string;
  sub: string;
  grantId?: string;
  /** The revoked access token's `jti`. */
  jti?: string;
}

/** The host revoked a user's grant to a client through `provider.grants.revoke`. */
export interface GrantRevokedEvent extends EventBase {
  type: 'grant_revoked';
  sub: string;
  clientId: string;
}

/** The host revoked every token of a client through `provider.clients.revokeTokens`. */
export interface ClientTokensRevokedEvent extends EventBase {
  type: 'client_tokens_revoked';
  clientId: string;
}

/** A user signed out at the end_session endpoint (RP-initiated logout). */
export interface LogoutEvent extends EventBase {
  type: 'logout';
  sub: string;
  sid: string;
  /** The client that asked for the logout, when the request named or proved one. */
  clientId?: string;
}

/** A session ended; its clients' tokens of it stop working. */
export interface SessionEndedEvent extends EventBase {
  type: 'session_ended';
  sub: string;
  sid: string;
  /**
   * `logout`: the user signed out at the end_session endpoint; `api`: the host ended it through
   * `provider.sessions`; `replaced`: another user signed in on the same browser.
   */
  reason: SessionEndReason;
  /** The clients that received a code or tokens in the session. */
  clients: string[];
}

export type SessionEndReason = 'logout' | 'api' | 'replaced';

/**
 * A logout token did not reach a client's backchannel_logout_uri after every attempt
 * (docs/logout.md); the client still holds its session for the user. Also reported to `onError`.
 */
export interface BackchannelLogoutFailedEvent extends EventBase {
  type: 'backchannel_logout_failed';
  clientId: string;
  sub: string;
  /** The session the token named, when it named one. */
  sid?: string;
  /** Why the last attempt failed, e.g. `answered HTTP 500`. */
  reason: string;
}

/**
 * A CIBA ping (docs/ciba.md) reached the client's notification endpoint (`ciba_ping_sent`), or
 * did not after every attempt (`ciba_ping_failed`, also reported to `onError`; the client can
 * still poll). Never the auth_req_id nor the client_notification_token.
 */
export interface CibaPingEvent extends EventBase {
  type: 'ciba_ping_sent' | 'ciba_ping_failed';
  clientId: string;
  /** The user who answered. */
  sub: string;
  decision: 'approved' | 'denied';
  /** Milliseconds from the decision to the last attempt's end, retries and their waits included. */
  durationMs: number;
  /** Why the last attempt failed, e.g. `answered HTTP 500`; only when it failed. */
  reason?: string;
}

/**
 * A client failed to authenticate at the token, introspection, revocation or backchannel
 * authentication endpoint. The presented client_id is given only when it names a client of
 * the realm: anything else is the caller's free text.
 */
export interface ClientAuthenticationFailedEvent extends EventBase {
  type: 'client_authentication_failed';
  clientId?: string;
  /** How the caller presented its credentials: `basic`, `post`, `assertion` or `none`. */
  presentedAs: string;
  /** The endpoint's path below the realm, e.g. `token`. */
  endpoint: string;
}

/**
 * A client registered itself (RFC 7591), changed its registration or removed it (RFC 7592), or
 * the host removed it (`provider.clients.deleteRegistered`, or unused for the realm's
 * `unused_client_seconds`: `client_deleted`). Never its metadata, secret or tokens.
 */
export interface ClientRegistrationEvent extends EventBase {
  type: 'client_registered' | 'client_updated' | 'client_deleted';
  clientId: string;
}

/** An event as a module reports it; the provider adds the realm and the time. */
export type EventDetails = GatehouseEvent extends infer E
  ? E extends GatehouseEvent
    ? Omit<E, keyof EventBase>
    : never
  : never;
