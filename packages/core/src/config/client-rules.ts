import {
  CIBA_GRANT_TYPE,
  type ClientConfig,
  HMAC_ALGORITHMS,
  JWT_BEARER_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
} from './client.js';
import type { ConfigIssue } from './issues.js';
import { isLoopbackRedirectUri } from './loopback-redirect.js';
import { isHttpsOrLoopback, splitScope } from './primitives.js';

const SECRET_METHODS = new Set(['client_secret_post', 'client_secret_basic', 'client_secret_jwt']);
const HMAC = new Set<string>(HMAC_ALGORITHMS);
/** HS256 needs a key at least as long as its output (RFC 7518 §3.2). */
const MIN_HMAC_SECRET_LENGTH = 32;

/** Rules that tie a client's fields to one another. Paths are relative to the client. */
export function clientIssues(client: ClientConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  const method = client.token_endpoint_auth_method;

  if (SECRET_METHODS.has(method) && client.client_secret === undefined) {
    problem('client_secret', `is required for ${method}`);
  }
  if (!SECRET_METHODS.has(method) && client.client_secret !== undefined) {
    problem('client_secret', `must not be set for ${method}`);
  }
  issues.push(...hmacSecretIssues(method, 'client_secret', client.client_secret));
  issues.push(...previousSecretIssues(client));
  const hasKeys = client.jwks !== undefined || client.jwks_uri !== undefined;
  if (method === 'private_key_jwt' && !hasKeys)
    problem('jwks', 'or jwks_uri is required for private_key_jwt');
  if (client.jwks !== undefined && client.jwks_uri !== undefined) {
    problem('jwks_uri', 'must not be set together with jwks');
  }

  const alg = client.token_endpoint_auth_signing_alg;
  if (alg !== undefined) {
    if (method === 'client_secret_jwt' && !HMAC.has(alg))
      problem(
        'token_endpoint_auth_signing_alg',
        'must be an HMAC algorithm (HS256, HS384, HS512) for client_secret_jwt',
      );
    else if (method === 'private_key_jwt' && HMAC.has(alg))
      problem(
        'token_endpoint_auth_signing_alg',
        'must be an asymmetric algorithm for private_key_jwt',
      );
    else if (method !== 'client_secret_jwt' && method !== 'private_key_jwt')
      problem(
        'token_endpoint_auth_signing_alg',
        `is only used with client_secret_jwt and private_key_jwt`,
      );
  }

  if (client.grant_types.includes('client_credentials')) {
    if (client.application_type !== 'web')
      problem('grant_types', 'client_credentials is for web applications only');
    else if (method === 'none')
      problem('grant_types', 'client_credentials needs a client that authenticates');
  }

  // CIBA Core 1.0 §4: anyone holding an (expired) ID token of a public client could start a
  // request. A token or an assertion presented by a public client could come from anyone who
  // copied it: the delegation grants need a client that proves who it is.
  for (const grant of [
    CIBA_GRANT_TYPE,
    TOKEN_EXCHANGE_GRANT_TYPE,
    JWT_BEARER_GRANT_TYPE,
  ] as const) {
    if (client.grant_types.includes(grant) && method === 'none') {
      problem('grant_types', `${grant} needs a client that authenticates`);
    }
  }
  issues.push(...cibaDeliveryIssues(client));
  const exchanges = client.grant_types.includes(TOKEN_EXCHANGE_GRANT_TYPE);
  if (exchanges && client.token_exchange === undefined) {
    problem('token_exchange', `is required for the ${TOKEN_EXCHANGE_GRANT_TYPE} grant`);
  }
  if (!exchanges && client.token_exchange !== undefined) {
    problem('token_exchange', `is only used with the ${TOKEN_EXCHANGE_GRANT_TYPE} grant`);
  }

  // Only a client with redirect URIs reaches the authorization endpoint at all.
  const codeResponses = client.response_types.filter((type) => type.split(' ').includes('code'));
  const browserClient = client.redirect_uris.length > 0;
  if (
    browserClient &&
    codeResponses.length > 0 &&
    !client.grant_types.includes('authorization_code')
  ) {
    problem(
      'grant_types',
      `response_type "${codeResponses[0]}" needs the authorization_code grant`,
    );
  }

  const redirectGrant = client.grant_types.find(
    (grant) => grant === 'authorization_code' || grant === 'implicit',
  );
  if (redirectGrant && client.redirect_uris.length === 0) {
    problem('redirect_uris', `must list at least one URI for the ${redirectGrant} grant`);
  }
  // OpenID Connect Dynamic Client Registration §2 (application_type): a web client's redirect
  // URIs are https; plain http only back to this machine, for development.
  // RFC 8252 §7.3 and §8.3: a native client's plain http is a loopback redirect, written as the
  // port-free match of redirect-uri-match.ts reads it.
  client.redirect_uris.forEach((uri, index) => {
    if (!/^http:/i.test(uri)) return;
    if (client.application_type === 'web' && !isHttpsOrLoopback(uri)) {
      problem(
        `redirect_uris[${index}]`,
        'must be https for a web client (plain http only to localhost, 127.0.0.1 or [::1])',
      );
    }
    if (client.application_type === 'native' && !isLoopbackRedirectUri(uri)) {
      problem(
        `redirect_uris[${index}]`,
        'must be a loopback URI for a native client when it is plain http: http://127.0.0.1, http://[::1] or http://localhost, in lower case, without userinfo (RFC 8252 §7.3)',
      );
    }
  });

  // RFC 9700 §2.1.1: without a secret, PKCE is all that stops a stolen code being redeemed.
  if (method === 'none' && !client.require_pkce) {
    problem('require_pkce', 'must be true for a public client (token_endpoint_auth_method none)');
  }

  if (client.default_scope !== undefined) {
    const assigned = new Set(splitScope(client.scope));
    for (const scope of splitScope(client.default_scope)) {
      if (!assigned.has(scope)) problem('default_scope', `"${scope}" is not in the client's scope`);
    }
  }
  return issues;
}

/** client_secret_jwt signs with the secret: it must be long enough for HMAC. */
function hmacSecretIssues(method: string, path: string, secret: string | undefined): ConfigIssue[] {
  return method === 'client_secret_jwt' &&
    secret !== undefined &&
    secret.length < MIN_HMAC_SECRET_LENGTH
    ? [
        {
          path,
          message: `must be at least ${MIN_HMAC_SECRET_LENGTH} characters for client_secret_jwt`,
        },
      ]
    : [];
}

/** A previous secret comes with its expiry, beside a current secret it was replaced by. */
function previousSecretIssues(client: ClientConfig): ConfigIssue[] {
  const { previous_client_secret: previous, previous_client_secret_expires_at: expiresAt } = client;
  if (previous === undefined) {
    return expiresAt === undefined
      ? []
      : [{ path: 'previous_client_secret_expires_at', message: 'needs previous_client_secret' }];
  }
  if (client.client_secret === undefined)
    return [{ path: 'previous_client_secret', message: 'needs a client_secret' }];
  return [
    ...(expiresAt === undefined
      ? [
          {
            path: 'previous_client_secret_expires_at',
            message: 'is required with previous_client_secret',
          },
        ]
      : []),
    ...hmacSecretIssues(client.token_endpoint_auth_method, 'previous_client_secret', previous),
  ];
}

/** CIBA Core 1.0 §4: a ping client is told where to hear; only a ping client has that endpoint. */
function cibaDeliveryIssues(client: ClientConfig): ConfigIssue[] {
  const pings = client.backchannel_token_delivery_mode === 'ping';
  const endpoint = client.backchannel_client_notification_endpoint;
  if (pings && !client.grant_types.includes(CIBA_GRANT_TYPE)) {
    return [
      {
        path: 'backchannel_token_delivery_mode',
        message: `ping needs the ${CIBA_GRANT_TYPE} grant`,
      },
    ];
  }
  if (pings && endpoint === undefined) {
    return [{ path: 'backchannel_client_notification_endpoint', message: 'is required for ping' }];
  }
  if (!pings && endpoint !== undefined) {
    return [
      { path: 'backchannel_client_notification_endpoint', message: 'is only used with ping' },
    ];
  }
  return [];
}
