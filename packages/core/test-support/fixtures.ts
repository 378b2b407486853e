import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { RealmInput } from '../src/index.js';

/*
 * The test realm core's own tests and the repository's integration tests share (these re-export
 * it from test/support/fixtures.ts). Test support only: no package entry ships it.
 */

export const API_RESOURCE = 'https://api.example.com';
export const OTHER_RESOURCE = 'https://other.example.com';

export const SECRETS = {
  post: 'post-secret-0123456789abcdef',
  basic: 'basic-secret-0123456789abcdef',
  jwt: 'jwt-secret-0123456789abcdef0123456789',
  api: 'api-secret-0123456789abcdef',
  other: 'other-secret-0123456789abcdef',
  web: 'web-secret-0123456789abcdef',
} as const;

export const WEB_REDIRECT_URI = 'https://app.example.com/cb';
export const WEB_LOGOUT_URI = 'https://app.example.com/signed-out';

/** The response types of OpenID Connect but `none` (OAuth 2.0 Multiple Response Types). */
export const OIDC_RESPONSE_TYPES = [
  'code',
  'id_token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
] as const;

export interface ClientKeyPair {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function clientKeyPair(
  alg = 'ES256',
  kid = `${alg.toLowerCase()}-key`,
): Promise<ClientKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

/**
 * The realm most tests use: one client per authentication method, all allowed client
 * credentials, and two Protected Resources each with its own introspecting client.
 */
export function testRealm(
  clientKeys: ClientKeyPair,
  overrides: Partial<RealmInput> = {},
): RealmInput {
  const machine = {
    application_type: 'web' as const,
    grant_types: ['client_credentials' as const],
    scope: 'api:read api:write other:read',
  };
  return {
    name: 'test',
    scopes: ['openid', 'profile', 'email', 'api:read', 'api:write', 'other:read'],
    resources: [
      { uri: API_RESOURCE, client_id: 'api', scopes: ['api:read', 'api:write'] },
      { uri: OTHER_RESOURCE, client_id: 'other-api', scopes: ['other:read'] },
    ],
    clients: [
      {
        ...machine,
        client_id: 'post-client',
        client_secret: SECRETS.post,
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        ...machine,
        client_id: 'basic-client',
        client_secret: SECRETS.basic,
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        ...machine,
        client_id: 'jwt-client',
        client_secret: SECRETS.jwt,
        token_endpoint_auth_method: 'client_secret_jwt',
      },
      {
        ...machine,
        client_id: 'key-client',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [clientKeys.publicJwk as never] },
      },
      {
        client_id: 'native-client',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['com.example.app:/cb'],
      },
      {
        client_id: 'api',
        // A resource server: it only introspects, and has no grant of its own.
        grant_types: [],
        client_secret: SECRETS.api,
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'openid',
      },
      {
        client_id: 'other-api',
        grant_types: [],
        client_secret: SECRETS.other,
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'openid',
      },
      {
        client_id: 'web-app',
        client_name: 'Web App',
        client_secret: SECRETS.web,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [WEB_REDIRECT_URI],
        post_logout_redirect_uris: [WEB_LOGOUT_URI],
        response_types: [...OIDC_RESPONSE_TYPES, 'none'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile email api:read',
        default_scope: 'openid profile',
      },
    ],
    ...overrides,
  };
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;
