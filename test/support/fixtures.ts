import type { Accounts } from '@gatehouse-oidc/core';
import { type CryptoKey, SignJWT } from 'jose';

export {
  API_RESOURCE,
  type ClientKeyPair,
  clientKeyPair,
  FORM_HEADERS,
  form,
  OIDC_RESPONSE_TYPES,
  OTHER_RESOURCE,
  SECRETS,
  testRealm,
  WEB_LOGOUT_URI,
  WEB_REDIRECT_URI,
} from '../../packages/core/test-support/fixtures.js';

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

/** `Authorization: Basic` value with both halves form-urlencoded first (RFC 6749 §2.3.1). */
export function basicAuthorization(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(secret)}`)}`;
}
