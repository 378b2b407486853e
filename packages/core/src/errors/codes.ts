/**
 * Every error code Gatehouse answers with, where it is defined and its default HTTP status. The
 * table of docs/errors.md is generated from here (packages/core/scripts/error-docs.ts).
 *
 * At the authorization endpoint, `authorization` says where an error may go: `shown` to the user at
 * the provider (docs/interface.md §7.1: the redirect target is not trusted yet), `redirected` to
 * the client's redirect_uri (docs/interface.md §7.2), or `either`, which the place that raises it
 * decides.
 */
export interface ErrorCodeDefinition {
  readonly status: number;
  readonly definedIn: string;
  readonly authorization?: 'shown' | 'redirected' | 'either';
  /** For the own codes of docs/interface.md: the registered code with the same meaning. */
  readonly registered?: RegisteredCode;
}

/** Codes of the OAuth 2.0 and OpenID specifications (and the IANA OAuth error registry). */
const REGISTERED = {
  invalid_request: {
    status: 400,
    definedIn: 'RFC 6749 §4.1.2.1, §5.2',
    authorization: 'either',
  },
  invalid_client: {
    status: 400,
    definedIn: 'RFC 6749 §5.2',
    // A client_id whose metadata document makes no client.
    authorization: 'shown',
  },
  invalid_grant: { status: 400, definedIn: 'RFC 6749 §5.2' },
  unauthorized_client: { status: 400, definedIn: 'RFC 6749 §5.2' },
  unsupported_grant_type: { status: 400, definedIn: 'RFC 6749 §5.2' },
  unsupported_response_type: {
    status: 400,
    definedIn: 'RFC 6749 §4.1.2.1',
    authorization: 'redirected',
  },
  invalid_scope: { status: 400, definedIn: 'RFC 6749 §4.1.2.1, §5.2', authorization: 'redirected' },
  access_denied: {
    status: 400,
    definedIn: 'RFC 6749 §4.1.2.1; CIBA Core 1.0 §11',
    authorization: 'redirected',
  },
  server_error: { status: 500, definedIn: 'RFC 6749 §4.1.2.1' },
  temporarily_unavailable: { status: 503, definedIn: 'RFC 6749 §4.1.2.1' },
  invalid_target: { status: 400, definedIn: 'RFC 8707 §2' },
  invalid_token: { status: 401, definedIn: 'RFC 6750 §3.1' },
  insufficient_scope: { status: 403, definedIn: 'RFC 6750 §3.1' },
  login_required: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6',
    authorization: 'redirected',
  },
  consent_required: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6',
    authorization: 'redirected',
  },
  request_not_supported: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6',
    authorization: 'redirected',
  },
  request_uri_not_supported: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6',
    authorization: 'redirected',
  },
  invalid_request_uri: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6; RFC 9126 §4',
    authorization: 'either',
  },
  invalid_request_object: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6; RFC 9101 §6.2',
    authorization: 'either',
  },
  registration_not_supported: {
    status: 400,
    definedIn: 'OIDC Core 1.0 §3.1.2.6',
    authorization: 'redirected',
  },
  authorization_pending: { status: 400, definedIn: 'CIBA Core 1.0 §11' },
  slow_down: { status: 400, definedIn: 'CIBA Core 1.0 §11' },
  expired_token: { status: 400, definedIn: 'CIBA Core 1.0 §11' },
  unknown_user_id: { status: 400, definedIn: 'CIBA Core 1.0 §13' },
  invalid_binding_message: { status: 400, definedIn: 'CIBA Core 1.0 §13' },
  invalid_client_metadata: { status: 400, definedIn: 'RFC 7591 §3.2.2' },
  invalid_dpop_proof: { status: 400, definedIn: 'RFC 9449 §5, §7.1' },
  // 400 at the token endpoint (§8); a resource answers it 401 with a DPoP challenge (§9).
  use_dpop_nonce: { status: 400, definedIn: 'RFC 9449 §8, §9' },
} as const satisfies Record<string, ErrorCodeDefinition>;

export type RegisteredCode = keyof typeof REGISTERED;

/**
 * The interface document's own codes (docs/interface.md §7.1, §7.2), each with the registered
 * code a client library expects in its place; docs/errors.md gives the reasons.
 */
const INTERFACE = {
  invalid_client_id: {
    status: 400,
    definedIn: 'docs/interface.md §7.1',
    authorization: 'shown',
    registered: 'invalid_request',
  },
  // RFC 7591 §3.2.2 registers it too: the registration endpoint sends it in every dialect.
  invalid_redirect_uri: {
    status: 400,
    definedIn: 'docs/interface.md §7.1; RFC 7591 §3.2.2',
    authorization: 'shown',
    registered: 'invalid_request',
  },
  invalid_response_type: {
    status: 400,
    definedIn: 'docs/interface.md §7.2',
    authorization: 'redirected',
    registered: 'unsupported_response_type',
  },
  invalid_response_mode: {
    status: 400,
    definedIn: 'docs/interface.md §7.2',
    authorization: 'redirected',
    registered: 'invalid_request',
  },
  invalid_code_challenge: {
    status: 400,
    definedIn: 'docs/interface.md §7.2',
    authorization: 'redirected',
    registered: 'invalid_request',
  },
  invalid_code_challenge_method: {
    status: 400,
    definedIn: 'docs/interface.md §7.2',
    authorization: 'redirected',
    registered: 'invalid_request',
  },
  nonce_required: {
    status: 400,
    definedIn: 'docs/interface.md §7.2',
    authorization: 'redirected',
    registered: 'invalid_request',
  },
} as const satisfies Record<string, ErrorCodeDefinition & { registered: RegisteredCode }>;

/** Gatehouse's own: an HTTP answer outside any OAuth exchange, the same in every dialect. */
const GATEHOUSE = {
  not_found: { status: 404, definedIn: 'Gatehouse (unknown endpoint, realm or admin route)' },
  config_managed: {
    status: 409,
    definedIn: 'Gatehouse admin API (a realm written in the config file)',
  },
  secrets_unreadable: {
    status: 409,
    definedIn: "Gatehouse admin API (a stored realm's client secrets do not open)",
  },
} as const satisfies Record<string, ErrorCodeDefinition>;

export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeDefinition>> = {
  ...REGISTERED,
  ...INTERFACE,
  ...GATEHOUSE,
};

type Codes = typeof REGISTERED & typeof INTERFACE & typeof GATEHOUSE;
/** Every code Gatehouse answers with: the table of docs/errors.md, one row a code. */
export type ErrorCode = keyof Codes;

type AuthorizationCode<Where> = {
  [Code in ErrorCode]: Codes[Code] extends { authorization: Where } ? Code : never;
}[ErrorCode];
/** Codes the authorization endpoint may send back to the client's redirect_uri. */
export type RedirectedCode = AuthorizationCode<'redirected' | 'either'>;
/** Codes the authorization endpoint may show at the provider. */
export type ShownCode = AuthorizationCode<'shown' | 'either'>;

/**
 * Which codes a realm speaks: `interface` sends the interface document's own codes as they are,
 * `registered` sends the registered code in their place. Every other code is the same in both.
 */
export type ErrorDialect = 'interface' | 'registered';

/** The `error` value sent for `code` in `dialect`. */
export function wireCode(code: ErrorCode, dialect: ErrorDialect): string {
  return dialect === 'registered' ? (ERROR_CODES[code].registered ?? code) : code;
}
