/**
 * The one error type of Gatehouse. `code` is the RFC error code sent verbatim, `description`
 * is safe to show the client, `cause` is for operators and is never serialised.
 */
export class OAuthError extends Error {
  readonly code: string;
  readonly status: number;
  readonly description: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Section 7.2 errors go back to the redirect_uri; 7.1 errors are shown at the provider. */
  readonly redirectable: boolean;
  /** The client's answer hides a fault operators must hear about: `cause` goes to `onError`. */
  readonly reportCause: boolean;

  constructor(
    code: string,
    description?: string,
    options: {
      status?: number;
      headers?: Record<string, string>;
      redirectable?: boolean;
      cause?: unknown;
      reportCause?: boolean;
    } = {},
  ) {
    super(description ? `${code}: ${description}` : code, { cause: options.cause });
    this.name = 'OAuthError';
    this.code = code;
    this.description = description;
    this.status = options.status ?? 400;
    this.headers = options.headers ?? {};
    this.redirectable = options.redirectable ?? false;
    this.reportCause = options.reportCause ?? false;
  }
}

export const invalidRequest = (description: string, cause?: unknown) =>
  new OAuthError('invalid_request', description, { cause });

export const invalidScope = (description: string) => new OAuthError('invalid_scope', description);

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

export const invalidTarget = (description: string) => new OAuthError('invalid_target', description);

export const unauthorizedClient = (description: string) =>
  new OAuthError('unauthorized_client', description);

export const payloadTooLarge = () =>
  new OAuthError('invalid_request', 'the request body is too large', { status: 413 });

export const notFound = (description: string) =>
  new OAuthError('not_found', description, { status: 404 });

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
