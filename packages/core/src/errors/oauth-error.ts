import { ERROR_CODES, type ErrorCode } from './codes.js';

/** Outside what RFC 6749 (§4.1.2.1, §5.2) allows in an `error_description`: %x20-21 / %x23-5B / %x5D-7E. */
const OUTSIDE_DESCRIPTION = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;

export const isSafeDescription = (description: string) => !OUTSIDE_DESCRIPTION.test(description);

/**
 * `description` within the characters RFC 6749 allows: `"` becomes `'`, `\` becomes `/`, anything
 * else outside the set (controls, non-ASCII) `?`. Descriptions written in Gatehouse need none of
 * this (errors/descriptions.test.ts checks them); a host's interaction result might.
 */
export function safeDescription(description: string): string {
  if (isSafeDescription(description)) return description;
  return description.replace(new RegExp(OUTSIDE_DESCRIPTION, 'g'), (character) =>
    character === '"' ? "'" : character === '\\' ? '/' : '?',
  );
}

/**
 * The one error type of Gatehouse. `code` names an entry of the error registry (./codes.ts),
 * which gives the default status; `description` is safe to show the client (never a request value,
 * and kept to the characters RFC 6749 allows); `cause` is for operators and is never serialised.
 */
export class OAuthError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly description: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * At the authorization endpoint: the error goes back to the redirect_uri
   * (docs/interface.md §7.2) instead of being shown at the provider (docs/interface.md §7.1).
   */
  readonly redirectable: boolean;
  /** The client's answer hides a fault operators must hear about: `cause` goes to `onError`. */
  readonly reportCause: boolean;

  constructor(
    code: ErrorCode,
    description?: string,
    options: {
      status?: number;
      headers?: Record<string, string>;
      redirectable?: boolean;
      cause?: unknown;
      reportCause?: boolean;
    } = {},
  ) {
    const safe = description === undefined ? undefined : safeDescription(description);
    super(safe ? `${code}: ${safe}` : code, { cause: options.cause });
    this.name = 'OAuthError';
    this.code = code;
    this.description = safe;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
    this.redirectable = options.redirectable ?? false;
    this.reportCause = options.reportCause ?? false;
  }
}

export const payloadTooLarge = () =>
  new OAuthError('invalid_request', 'the request body is too large', { status: 413 });

export const methodNotAllowed = (allowed: readonly string[]) =>
  new OAuthError('invalid_request', 'method not allowed', {
    status: 405,
    headers: { allow: allowed.join(', ') },
  });

/** Thrown by Store implementations when the backing service fails or times out. */
export class StoreUnavailableError extends Error {
  constructor(message = 'store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
