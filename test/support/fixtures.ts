import type { Accounts, RealmInput } from '@gatehouse/core';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A clock tests move by hand. Milliseconds, like Date.now. */
export function fakeClock(start = Date.UTC(2030, 0, 1)) {
  let current = start;
  return {
    now: () => current,
    advance(seconds: number) {
      current += seconds * 1000;
    },
  };
}

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

/** The users behind the test realm's browser flows. */
export const TEST_USERS: Readonly<Record<string, Record<string, unknown>>> = {
  alice: {
    name: 'Alice Liddell',
    given_name: 'Alice',
    family_name: 'Liddell',
    preferred_username: 'alice',
    locale: 'en',
    updated_at: 1_700_000_000,
    email: 'alice@example.com',
    email_verified: true,
  },
  bob: { name: 'Bob', email: 'bob@example.com', email_verified: false },
};

export const TEST_ACCOUNTS: Accounts = {
  async findAccount(_realm, sub) {
    const claims = TEST_USERS[sub];
    return claims && { sub, claims };
  },
};

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
        client_secret: SECRETS.api,
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'openid',
      },
      {
        client_id: 'other-api',
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

/** A client assertion (RFC 7523) with sensible defaults that each test can override. */
export async function clientAssertion(
  key: CryptoKey | Uint8Array,
  alg: string,
  claims: {
    iss: string;
    sub?: string;
    aud: string | string[];
    jti?: string;
    exp?: number;
    iat?: number;
  },
  header: Record<string, unknown> = {},
): Promise<string> {
  const iat = claims.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: claims.jti ?? crypto.randomUUID() })
    .setProtectedHeader({ alg, ...header })
    .setIssuer(claims.iss)
    .setSubject(claims.sub ?? claims.iss)
    .setAudience(claims.aud)
    .setIssuedAt(iat)
    .setExpirationTime(claims.exp ?? iat + 60)
    .sign(key);
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** `Authorization: Basic` value with both halves form-urlencoded first (RFC 6749 §2.3.1). */
export function basicAuthorization(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}
