/**
 * @module
 * The one way Gatehouse reaches out: client key sets, logout tokens, client metadata documents,
 * trusted issuers' keys, notifications. Every request is bounded in time and bytes and follows
 * no redirect; where it may go depends on who wrote its URL.
 */

/**
 * Who wrote a URL the provider calls. An operator's URL (configuration, the admin API) may point
 * anywhere, loopback included. A URL that came from outside (a client ID metadata document and
 * every URL in it, a dynamically registered client's metadata) must be https and reach only
 * public addresses, checked after DNS resolution, unless its realm allows private networks.
 */
export type UrlAuthor = 'operator' | 'outside';

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  author: UrlAuthor;
  /** An outside URL may reach loopback, private and other special-use addresses. */
  allowPrivateNetworks?: boolean;
  /** Default: the fetcher's. */
  timeoutMs?: number;
  /** Default: the fetcher's. */
  maxBytes?: number;
  /** The status says all: the body is not read (the answer's body is then empty). */
  ignoreBody?: boolean;
  /** Gives the request up when it aborts (a server closing, say). */
  signal?: AbortSignal;
}

/** An answer read whole, within the request's bounds. */
export interface OutboundResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** Why an outbound request was given up; `message` says it for operators, never with secrets. */
export type OutboundFailure =
  | 'refused_url'
  | 'refused_address'
  | 'redirect'
  | 'timeout'
  | 'too_large'
  | 'network'
  | 'aborted';

export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * What actually sends a request: a `fetch` and, on a runtime that can resolve names, the check
 * of the addresses a host resolves to. It must follow no redirect (answering the 3xx itself) and
 * honour `signal`. With `publicOnly`, it must refuse (an `OutboundError` `refused_address`) to
 * connect to any address that is not public unicast, checked on the address it connects to.
 */
export interface OutboundTransport {
  send(request: TransportRequest): Promise<Response>;
  /** Whether `publicOnly` is enforced after DNS resolution; a transport that cannot says false. */
  readonly resolvesAddresses: boolean;
}

export interface TransportRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  publicOnly: boolean;
}

/** Sends requests within their bounds; see `boundedFetcher`. */
export interface OutboundFetcher {
  send(request: OutboundRequest): Promise<OutboundResponse>;
}
