import { type ClientConfig, clientSchema } from '../config/client.js';
import { clientIssues } from '../config/client-rules.js';
import { type ConfigIssue, formatIssue, zodIssues } from '../config/issues.js';
import { splitScope, UNSAFE_NAME_CHARACTERS } from '../config/primitives.js';
import type { RegistrationConfig } from '../config/registration.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Realm } from '../realms/realm.js';

/**
 * The client metadata (RFC 7591 §2, OpenID Connect Dynamic Client Registration §2) a registered
 * client may set, and which its registration answer echoes. Every other member is ignored.
 */
export const REGISTERED_METADATA = [
  'redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'token_endpoint_auth_signing_alg',
  'application_type',
  'scope',
  'client_name',
  'jwks',
  'jwks_uri',
  'post_logout_redirect_uris',
  'id_token_signed_response_alg',
] as const;

export type RegisteredMetadata = Partial<Pick<ClientConfig, (typeof REGISTERED_METADATA)[number]>>;

/** What the provider assigns beside the metadata: the client_id and, for a secret method, a secret. */
export interface AssignedCredentials {
  clientId: string;
  /** Only used for the secret methods. */
  clientSecret: string;
}

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);
const REDIRECT_FIELDS = new Set(['redirect_uris', 'post_logout_redirect_uris']);

/** Whether a client authenticating with `method` is given a secret. */
export const usesSecret = (method: string): boolean => SECRET_METHODS.has(method);

/**
 * The client a registration (or an RFC 7592 update) asks for, within the realm's policy and under
 * the rules every configured client follows: unknown members ignored (RFC 7591 §2), RFC 7591's
 * defaults (client_secret_basic, the code grant), always PKCE, never skipping consent. Throws
 * `invalid_redirect_uri` when a redirect URI is refused, else `invalid_client_metadata`, with
 * every problem in the description.
 */
export function registeredClientConfig(
  metadata: unknown,
  realm: Realm,
  settings: RegistrationConfig,
  credentials: AssignedCredentials,
): ClientConfig {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'the request body must be a JSON object');
  }
  const given = metadata as Record<string, unknown>;
  const taken = Object.fromEntries(
    REGISTERED_METADATA.filter((name) => given[name] !== undefined && given[name] !== null).map(
      (name) => [name, given[name]],
    ),
  );
  const method = taken.token_endpoint_auth_method ?? 'client_secret_basic';
  const allowedScopes = settings.scopes ?? realm.config.scopes;
  const parsed = clientSchema.safeParse({
    ...taken,
    token_endpoint_auth_method: method,
    client_id: credentials.clientId,
    ...(typeof method === 'string' && usesSecret(method)
      ? { client_secret: credentials.clientSecret }
      : {}),
    scope: taken.scope ?? allowedScopes.join(' '),
    require_pkce: true,
    skip_consent: false,
  });
  if (!parsed.success) throw refusal(zodIssues(parsed.error));
  const config = parsed.data;
  const problems = [...policyIssues(config, realm, settings, allowedScopes)];
  if (problems.length === 0) problems.push(...clientIssues(config));
  if (problems.length > 0) throw refusal(problems);
  return settings.registered_scope === 'all_offered'
    ? { ...config, scope: allowedScopes.join(' ') }
    : config;
}

/** What the realm's registration policy refuses, though a configured client could have it. */
function policyIssues(
  config: ClientConfig,
  realm: Realm,
  settings: RegistrationConfig,
  allowedScopes: readonly string[],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  const method = config.token_endpoint_auth_method;
  if (method === 'client_secret_jwt') {
    problem(
      'token_endpoint_auth_method',
      'client_secret_jwt is not offered to registered clients, whose secret is kept only as a digest (use private_key_jwt)',
    );
  } else if (!settings.token_endpoint_auth_methods.includes(method)) {
    problem(
      'token_endpoint_auth_method',
      `must be one of ${settings.token_endpoint_auth_methods.join(', ')}`,
    );
  }
  config.grant_types.forEach((grant, index) => {
    if (!settings.grant_types.includes(grant)) {
      problem(`grant_types[${index}]`, `${grant} is not offered to registered clients here`);
    }
  });
  // RFC 7591 §2.1: a response type that returns tokens from the authorization endpoint is implicit.
  config.response_types.forEach((type, index) => {
    if (/token/.test(type) && !config.grant_types.includes('implicit')) {
      problem(`response_types[${index}]`, `"${type}" needs the implicit grant type`);
    }
  });
  const allowed = new Set(allowedScopes);
  for (const scope of splitScope(config.scope)) {
    if (!allowed.has(scope)) problem('scope', `"${scope}" is not offered to registered clients`);
  }
  const schemes = new Set(settings.redirect_uri_schemes);
  for (const field of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
    config[field].forEach((uri, index) => {
      const scheme = uri.slice(0, uri.indexOf(':')).toLowerCase();
      if (!schemes.has(scheme)) {
        problem(
          `${field}[${index}]`,
          `the ${scheme} scheme is not accepted here (${settings.redirect_uri_schemes.join(', ')})`,
        );
      }
    });
  }
  if (config.client_name !== undefined && UNSAFE_NAME_CHARACTERS.test(config.client_name)) {
    problem('client_name', 'must not contain control or formatting characters');
  }
  // What the realm signs with: its signing_alg, and RS256 unless it is a fapi2 realm.
  const idTokenAlg = config.id_token_signed_response_alg;
  if (idTokenAlg !== undefined && !realm.signingAlgorithms.includes(idTokenAlg)) {
    problem('id_token_signed_response_alg', `must be ${realm.signingAlgorithms.join(' or ')}`);
  }
  return issues;
}

/** The accepted metadata, as the registration and configuration endpoints echo it. */
export function echoedMetadata(config: ClientConfig): RegisteredMetadata {
  const echoed: Record<string, unknown> = {};
  for (const name of REGISTERED_METADATA) {
    const value = config[name];
    const empty = Array.isArray(value) && value.length === 0 && name !== 'redirect_uris';
    if (value !== undefined && !empty) echoed[name] = value;
  }
  return echoed as RegisteredMetadata;
}

/** RFC 7591 §3.2.2: a refused redirect URI has its own code; everything else is metadata. */
function refusal(issues: readonly ConfigIssue[]): OAuthError {
  const redirect = issues.some((issue) =>
    REDIRECT_FIELDS.has(issue.path.split(/[.[]/, 1)[0] ?? ''),
  );
  return new OAuthError(
    redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
    issues.map(formatIssue).join('; '),
  );
}
