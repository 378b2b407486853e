/** What the user's authenticator app is told about a CIBA request, to show and to answer. */
export interface CibaNotification {
  realm: string;
  authReqId: string;
  /** The user, as the id_token_hint named them. */
  sub: string;
  clientId: string;
  clientName?: string;
  scopes: string[];
  bindingMessage?: string;
  /** Seconds since the epoch after which the request can no longer be approved. */
  expiresAt: number;
}

/**
 * Reaches the user's authenticator app (a push service, a webhook…). Gatehouse calls `notify`
 * once per CIBA request without waiting for it: delivery problems are the adapter's to retry and
 * are reported to `onError`, never shown to the client. The app's back end answers through
 * `provider.ciba.approve` / `deny`.
 */
export interface AuthenticatorPush {
  notify(notification: CibaNotification): Promise<void>;
  /**
   * Whether the channel can take a notification for the realm now. Asked before a request is
   * stored; `false` refuses it with `503 temporarily_unavailable`, so a channel that is behind
   * pushes back on clients instead of queueing without bound. Absent: always.
   */
  accepts?(realm: string): boolean;
}

/** How the user authenticated on the authenticator when approving. */
export interface CibaApproval {
  amr?: string[];
  acr?: string;
  /** Seconds since the epoch; defaults to the moment of the approval. */
  authTime?: number;
}
